// An array's parts are checked where the array is made; writing them
// afterwards (a smaller block, other pairs) could send the kernels
// outside memory, so the handle to them is `unsafe` to take.
use dynd::nd::Array;

fn main() {
    let mut a = Array::from_vec(vec![1.0f64; 4]);
    let (_, data, _) = a.parts_mut();
    drop(data);
}
