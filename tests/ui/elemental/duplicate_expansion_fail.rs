use dynd::elemental;

#[elemental(T = [f64, f32, f64])]
fn twice<T: Copy + std::ops::Add<Output = T>>(x: T) -> T {
    x + x
}

fn main() {}
