use dynd::elemental;

#[elemental]
async fn twice(x: f64) -> f64 {
    x * 2.0
}

fn main() {}
