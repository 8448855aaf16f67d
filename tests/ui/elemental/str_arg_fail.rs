use dynd::elemental;

#[elemental]
fn domain(url: &str) -> i64 {
    url.len() as i64
}

fn main() {}
