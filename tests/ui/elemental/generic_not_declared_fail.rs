use dynd::elemental;

#[elemental(T = [f32, f64], U = [i32])]
fn twice<T: Copy + std::ops::Add<Output = T>>(x: T) -> T {
    x + x
}

fn main() {}
