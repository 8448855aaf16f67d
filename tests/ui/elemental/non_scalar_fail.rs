use dynd::elemental;

#[elemental]
fn shout(s: String) -> usize {
    s.len()
}

fn main() {}
