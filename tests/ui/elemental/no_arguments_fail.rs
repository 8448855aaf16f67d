use dynd::elemental;

#[elemental]
fn answer() -> i64 {
    42
}

fn main() {}
