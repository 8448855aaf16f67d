//! Reading and writing one scalar element as bytes, through [`Num`], in
//! safe code (the arrays' construction and printing paths; kernels use
//! typed loops instead).

use dynd_types::Scalar;

use crate::convert::{Convert, ErrorMode, Fail, Num};
use crate::element::{Complex, F16};

/// Bytes of a value, native endian.
trait Bytes: Sized {
    fn put(self, out: &mut [u8]);
    fn get(bytes: &[u8]) -> Self;
}

macro_rules! bytes_prim {
    ($($t:ty),*) => {$(
        impl Bytes for $t {
            fn put(self, out: &mut [u8]) {
                out[..std::mem::size_of::<$t>()].copy_from_slice(&self.to_ne_bytes());
            }
            fn get(bytes: &[u8]) -> Self {
                let mut b = [0u8; std::mem::size_of::<$t>()];
                b.copy_from_slice(&bytes[..std::mem::size_of::<$t>()]);
                <$t>::from_ne_bytes(b)
            }
        }
    )*};
}
bytes_prim!(i8, i16, i32, i64, i128, u8, u16, u32, u64, u128, f32, f64);

impl Bytes for bool {
    fn put(self, out: &mut [u8]) {
        out[0] = u8::from(self);
    }
    fn get(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
}

impl Bytes for F16 {
    fn put(self, out: &mut [u8]) {
        self.0.put(out)
    }
    fn get(bytes: &[u8]) -> Self {
        F16(u16::get(bytes))
    }
}

impl<T: Bytes + Copy> Bytes for Complex<T> {
    fn put(self, out: &mut [u8]) {
        let half = out.len() / 2;
        self.re.put(&mut out[..half]);
        self.im.put(&mut out[half..]);
    }
    fn get(bytes: &[u8]) -> Self {
        let half = bytes.len() / 2;
        Complex::new(T::get(&bytes[..half]), T::get(&bytes[half..]))
    }
}

/// Writes `n` as a value of the numeric scalar `s` into `out` (at least
/// `s.size()` bytes).
pub fn write_num(s: Scalar, n: Num, mode: ErrorMode, out: &mut [u8]) -> Result<(), Fail> {
    with_numeric!(s, T => {
        let v = <T as Convert>::from_num(n, mode)?;
        let size = s.size();
        v.put(&mut out[..size]);
        Ok(())
    }, unreachable!("not a numeric scalar"))
}

/// Reads a value of the numeric scalar `s` from `bytes`.
pub fn read_num(s: Scalar, bytes: &[u8]) -> Num {
    with_numeric!(s, T => <T as Bytes>::get(&bytes[..s.size()]).to_num(), unreachable!("not a numeric scalar"))
}
