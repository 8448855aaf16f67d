use dynd::nd::Record;

#[derive(Record)]
struct Bad {
    ok: f64,
    list: Vec<f64>,
}

fn main() {}
