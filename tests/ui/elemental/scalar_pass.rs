use dynd::prelude::*;

/// The length of the hypotenuse.
#[elemental]
fn hypot(x: f64, y: f64) -> f64 {
    (x * x + y * y).sqrt()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The fn is unchanged.
    assert_eq!(hypot(3.0, 4.0), 5.0);
    assert_eq!(hypot::SIGNATURE, "(float64, float64) -> float64");
    assert_eq!(hypot::SIGNATURES, &["(float64, float64) -> float64"]);
    // Scalars, Vecs, nested and ragged Vecs, arrays and views.
    assert_eq!(hypot::call(3.0, 4.0)?.to_string(), "5");
    assert_eq!(hypot::call(vec![3.0, 5.0], 4.0)?.to_string(), "[5, 6.4031242374328485]");
    let ragged = hypot::call(vec![vec![3.0], vec![5.0, 8.0]], vec![vec![4.0], vec![12.0, 6.0]])?;
    assert_eq!(ragged.to_string(), "[[5], [13, 10]]");
    assert_eq!(ragged.ty().to_string(), "2 * var * float64");
    let a = nd::array![[3.0, 6.0], [5.0, 9.0]];
    let col = a.index(&[Index::ALL, Index::At(0)])?;
    assert_eq!(hypot::call(&col, 4.0)?.to_string(), "[5, 6.4031242374328485]");
    // Broadcasting errors name the dimension.
    let err = hypot::call(vec![1.0, 2.0, 3.0], vec![1.0, 2.0]).unwrap_err();
    assert!(err.to_string().contains("3") && err.to_string().contains("2"), "{err}");
    // Data types the fn does not take are cast when safe, refused otherwise.
    assert_eq!(hypot::call(vec![3i32], 4i8)?.to_string(), "[5]");
    // The callable composes: outer products.
    let table = hypot::callable().outer(&[&nd::array![3.0, 5.0], &nd::array![4.0, 12.0]])?;
    assert_eq!(table.to_string(), "[[5, 12.36931687685298], [6.4031242374328485, 13]]");
    Ok(())
}
