use dynd::elemental;

struct Meter;

impl Meter {
    #[elemental]
    fn scale(&self, x: f64) -> f64 {
        x
    }
}

fn main() {}
