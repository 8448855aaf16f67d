use dynd::elemental;

#[elemental]
unsafe fn twice(x: f64) -> f64 {
    x * 2.0
}

fn main() {}
