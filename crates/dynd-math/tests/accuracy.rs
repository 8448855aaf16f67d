//! Every function on every instruction set this CPU has, against
//! CORE-MATH (correctly rounded): at most one ULP from the correctly
//! rounded result over at least 10^6 arguments per function and path,
//! and exact at the special points. `--nocapture` prints the table of
//! maxima.

use dynd_math::{Binary, Isa, Unary};

/// Representable `f64`s between `a` and `b` (0 for equal or both NaN).
fn steps(a: f64, b: f64) -> u64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX;
    }
    let key = |x: f64| {
        let b = x.to_bits() as i64;
        if b < 0 {
            i64::MIN - b
        } else {
            b
        }
    };
    key(a).abs_diff(key(b))
}

/// As [`steps`] for `f32`.
fn steps32(a: f32, b: f32) -> u64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX;
    }
    let key = |x: f32| {
        let b = x.to_bits() as i32 as i64;
        if b < 0 {
            i32::MIN as i64 - b
        } else {
            b
        }
    };
    key(a).abs_diff(key(b))
}

/// The worst of `got` against the correctly rounded `want`: (ULP,
/// argument, result, correctly rounded result).
fn worst32<A: Copy>(
    args: impl Iterator<Item = A>,
    got: &[f32],
    want: &[f32],
) -> (u64, A, f32, f32) {
    args.zip(got.iter().zip(want))
        .map(|(x, (&g, &c))| (steps32(g, c), x, g, c))
        .max_by_key(|w| w.0)
        .expect("some arguments")
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    /// Log-uniform magnitude in `[2^lo, 2^hi)`, random sign if `signed`.
    fn log_uniform(&mut self, lo: i32, hi: i32, signed: bool) -> f64 {
        let e = self.uniform(lo as f64, hi as f64);
        let m = e.exp2() * (1.0 + self.unit() * 1e-3);
        if signed && self.next() & 1 == 1 {
            -m
        } else {
            m
        }
    }
}

const N: usize = 1 << 20;

/// Arguments for `f`: at least `N`, spread over its ranges.
fn arguments(f: Unary) -> Vec<f64> {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15 ^ f as u64);
    let mut v = Vec::with_capacity(N + 1000);
    let quarter = N / 4;
    let push_each = |v: &mut Vec<f64>, g: &mut dyn FnMut() -> f64| {
        for _ in 0..quarter {
            v.push(g());
        }
    };
    match f {
        Unary::Exp => {
            push_each(&mut v, &mut || r.uniform(-746.0, 710.0));
            push_each(&mut v, &mut || r.uniform(-1.0, 1.0));
            push_each(&mut v, &mut || r.log_uniform(-60, 0, true));
            // Near the reduction's boundaries, (k + 1/2) ln 2.
            push_each(&mut v, &mut || {
                let k = (r.next() % 2000) as f64 - 1000.0;
                (k + 0.5) * std::f64::consts::LN_2 * (1.0 + r.uniform(-1e-15, 1e-15))
            });
        }
        Unary::Exp2 => {
            push_each(&mut v, &mut || r.uniform(-1076.0, 1025.0));
            push_each(&mut v, &mut || r.uniform(-1.0, 1.0));
            push_each(&mut v, &mut || r.log_uniform(-60, 0, true));
            push_each(&mut v, &mut || {
                (r.next() % 2000) as f64 - 1000.0 + 0.5 + r.uniform(-1e-12, 1e-12)
            });
        }
        Unary::Expm1 => {
            push_each(&mut v, &mut || r.uniform(-40.0, 710.0));
            push_each(&mut v, &mut || r.uniform(-1.0, 1.0));
            push_each(&mut v, &mut || r.log_uniform(-1074, 0, true));
            push_each(&mut v, &mut || r.uniform(-5.0, 5.0));
        }
        Unary::Log | Unary::Log2 | Unary::Log10 => {
            // Any positive double, subnormals included.
            push_each(&mut v, &mut || f64::from_bits(r.next() >> 1));
            push_each(&mut v, &mut || r.log_uniform(-1074, 1024, false));
            push_each(&mut v, &mut || 1.0 + r.log_uniform(-60, -1, true));
            push_each(&mut v, &mut || r.uniform(0.5, 2.0));
        }
        Unary::Log1p => {
            push_each(&mut v, &mut || r.log_uniform(-1074, 1024, false));
            push_each(&mut v, &mut || -r.unit());
            push_each(&mut v, &mut || r.log_uniform(-60, 0, true));
            push_each(&mut v, &mut || r.uniform(-0.3, 0.5));
        }
        Unary::Sin | Unary::Cos | Unary::Tan => {
            push_each(&mut v, &mut || r.log_uniform(-30, 21, true));
            push_each(&mut v, &mut || r.uniform(-10.0, 10.0));
            // Near multiples of pi/2 (and of pi/4, where the quadrant turns).
            push_each(&mut v, &mut || {
                let k = (r.next() % 2_000_000) as f64 - 1_000_000.0;
                let base = k * std::f64::consts::FRAC_PI_4;
                f64::from_bits((base.to_bits() as i64 + (r.next() % 64) as i64 - 32) as u64)
            });
            // Past the vector reduction, to the top of the range.
            push_each(&mut v, &mut || r.log_uniform(20, 1024, true));
            // The doubles nearest to multiples of pi/2 there, both signs.
            v.extend(
                HARD_TRIG
                    .iter()
                    .flat_map(|&b| [f64::from_bits(b), -f64::from_bits(b)]),
            );
        }
        Unary::Sinh | Unary::Cosh => {
            push_each(&mut v, &mut || r.uniform(-712.0, 712.0));
            push_each(&mut v, &mut || r.uniform(-3.0, 3.0));
            push_each(&mut v, &mut || r.log_uniform(-60, 5, true));
            push_each(&mut v, &mut || r.uniform(-30.0, 30.0));
        }
        Unary::Tanh => {
            push_each(&mut v, &mut || r.uniform(-25.0, 25.0));
            push_each(&mut v, &mut || r.uniform(-1.0, 1.0));
            push_each(&mut v, &mut || r.log_uniform(-60, 5, true));
            push_each(&mut v, &mut || r.log_uniform(-1074, -60, true));
        }
        Unary::Arcsin | Unary::Arccos => {
            push_each(&mut v, &mut || r.uniform(-1.0, 1.0));
            push_each(&mut v, &mut || r.log_uniform(-60, 0, true));
            // Near the ends, where sqrt(1 - x^2) cancels.
            push_each(&mut v, &mut || {
                (1.0 - r.log_uniform(-53, -1, false)) * if r.next() & 1 == 1 { -1.0 } else { 1.0 }
            });
            push_each(&mut v, &mut || r.uniform(-1.1, 1.1));
        }
        Unary::Arctan => {
            push_each(&mut v, &mut || r.log_uniform(-1074, 1024, true));
            push_each(&mut v, &mut || r.uniform(-2.0, 2.0));
            push_each(&mut v, &mut || r.log_uniform(-30, 30, true));
            // Near the table's points i/16.
            push_each(&mut v, &mut || {
                ((r.next() % 33) as f64 / 16.0 - 1.0) + r.uniform(-1e-3, 1e-3)
            });
        }
        Unary::Arcsinh => {
            push_each(&mut v, &mut || r.log_uniform(-1074, 1024, true));
            push_each(&mut v, &mut || r.uniform(-3.0, 3.0));
            push_each(&mut v, &mut || r.log_uniform(-40, 40, true));
            push_each(&mut v, &mut || r.log_uniform(140, 160, true));
        }
        Unary::Arccosh => {
            push_each(&mut v, &mut || 1.0 + r.log_uniform(-60, 1024, false));
            push_each(&mut v, &mut || r.uniform(1.0, 3.0));
            push_each(&mut v, &mut || 1.0 + r.log_uniform(-52, 0, false));
            push_each(&mut v, &mut || r.log_uniform(140, 160, false));
        }
        Unary::Arctanh => {
            push_each(&mut v, &mut || r.uniform(-1.0, 1.0));
            push_each(&mut v, &mut || r.log_uniform(-60, 0, true));
            push_each(&mut v, &mut || {
                (1.0 - r.log_uniform(-53, -1, false)) * if r.next() & 1 == 1 { -1.0 } else { 1.0 }
            });
            push_each(&mut v, &mut || r.log_uniform(-1074, -60, true));
        }
        Unary::Cbrt => {
            push_each(&mut v, &mut || r.log_uniform(-1074, 1024, true));
            push_each(&mut v, &mut || f64::from_bits(r.next()));
            push_each(&mut v, &mut || r.uniform(-10.0, 10.0));
            // Near cubes of integers.
            push_each(&mut v, &mut || {
                let k = (r.next() % 100_000) as f64;
                k * k * k * (1.0 + r.uniform(-1e-15, 1e-15))
            });
        }
        _ => unreachable!("a new function needs arguments here"),
    }
    v.extend(edges());
    v.retain(|x| !x.is_nan());
    v
}

/// Arguments at the edges every function is checked at, both signs: the
/// smallest subnormal and the largest, the smallest normal, 1 and 0.5 and
/// 2 each side by one ULP, the overflow and underflow thresholds of the
/// exponentials (`exp` at 709.78 and -745.13, `sinh`/`cosh` at 710.48),
/// where the AVX-512 `log` leaves its reduction to the scalar path
/// (about 1.27e308), the largest double, and a ULP either side of each.
fn edges() -> Vec<f64> {
    let around = |x: f64| {
        [
            f64::from_bits(x.to_bits() - 1),
            x,
            f64::from_bits(x.to_bits() + 1),
        ]
    };
    let points = [
        f64::from_bits(1),
        f64::from_bits(0x000f_ffff_ffff_ffff),
        f64::MIN_POSITIVE,
        0.5,
        1.0,
        2.0,
        std::f64::consts::FRAC_PI_2,
        std::f64::consts::PI,
        709.782_712_893_384,
        745.133_219_101_941_1,
        708.396_418_532_264_1,
        710.475_860_073_943_9,
        1e300,
        // Where the AVX-512 `log`'s reduction hands its arguments to the
        // scalar path (`k` of 1024, past a biased exponent field).
        f64::from_bits(0x7fe6_aaaa_aaaa_aaab),
        f64::MAX,
    ];
    let mut v = Vec::new();
    for p in points {
        for x in around(p) {
            if x.is_finite() && x != 0.0 {
                v.extend([x, -x]);
            }
        }
    }
    v.extend([0.0, -0.0]);
    v
}

/// Doubles past the vector reduction (1.6e6 to 1e292) that lie very near
/// a multiple of `pi/2`, where a reduction short of Payne and Hanek's
/// loses the remainder's bits: for every other exponent, `m 2^e` with `m`
/// a multiple of the largest continued-fraction denominator of
/// `2^e 2/pi (mod 1)` below `2^53` (computed with exact rationals from
/// 2,400 bits of `pi`).
const HARD_TRIG: [u64; 502] = [
    0x4149eb7148f354d6,
    0x416b951f1572eba5,
    0x418b951f1572eba5,
    0x41ab951f1572eba5,
    0x41cb951f1572eba5,
    0x41e55202aefde314,
    0x4205c9508c58aafa,
    0x42246546a5bd73cc,
    0x42446546a5bd73cc,
    0x426065c829d68730,
    0x428065c829d68730,
    0x42a065c829d68730,
    0x42c065c829d68730,
    0x42e7512069b7430d,
    0x4307512069b7430d,
    0x4325cba89af1f855,
    0x43456a4aa740a5a7,
    0x43659af9a1194efe,
    0x438ae9608c734e12,
    0x43a4d8d546c1ba70,
    0x43c4d8d546c1ba70,
    0x43e0f02d497d677b,
    0x440a7f3bc5a7ed9e,
    0x442782b7a20df6d4,
    0x4441a209b98a791f,
    0x4461a209b98a791f,
    0x4481a209b98a791f,
    0x44a308ab84507e83,
    0x44c99caa5236feea,
    0x44e99caa5236feea,
    0x450e0664dbedfec5,
    0x452e0664dbedfec5,
    0x454f19e5d71b26ba,
    0x456f19e5d71b26ba,
    0x458d4ab7990f194d,
    0x45a66bd5424e5655,
    0x45c66bd5424e5655,
    0x45ec3dc1a597f202,
    0x460c3dc1a597f202,
    0x462e50fec1788957,
    0x4640a9f3d799b0e1,
    0x466dae3a00451b5f,
    0x4681c6cc29b3b153,
    0x46ad99e1681eada0,
    0x46c2802ce1132c84,
    0x46e0a68eca9141aa,
    0x470ae04fdb542be8,
    0x4724283be47f20ee,
    0x4740cc31e9149b71,
    0x47647623428452f0,
    0x47847623428452f0,
    0x47a09ffca60b8363,
    0x47ce7426933f5760,
    0x47e308981c07969c,
    0x48002db47e39a66b,
    0x482504cac51f1eaf,
    0x484504cac51f1eaf,
    0x486504cac51f1eaf,
    0x488504cac51f1eaf,
    0x48a27c111ade27e8,
    0x48c0f1ba58a0f9ea,
    0x48e5ad5a62cb1cc9,
    0x4905ad5a62cb1cc9,
    0x492f1cdf37f20ff1,
    0x494a651ccd5e965d,
    0x496b930d680374c2,
    0x498b930d680374c2,
    0x49a205a1c297f6b9,
    0x49c205a1c297f6b9,
    0x49e17e1e60c52f2e,
    0x4a082f4a9d83d2c2,
    0x4a2682ff8e5429dd,
    0x4a4682ff8e5429dd,
    0x4a6cca7515e2585c,
    0x4a8597d7d069c245,
    0x4aac54e136ed2490,
    0x4ac1b50cc25436da,
    0x4aed28d5c4c5e73b,
    0x4b0d28d5c4c5e73b,
    0x4b22722f5d698ace,
    0x4b42722f5d698ace,
    0x4b60539b48d14c55,
    0x4b80539b48d14c55,
    0x4bab5441ee104c98,
    0x4bc47f31728c3972,
    0x4bebb4c8e40cbe5d,
    0x4c03ecf49b990c61,
    0x4c21faff897c1fe2,
    0x4c4e7e44a78ac18c,
    0x4c66deb37da81129,
    0x4c86deb37da81129,
    0x4ca6deb37da81129,
    0x4ccb6ae968f21762,
    0x4ceb6ae968f21762,
    0x4d01e58e52ea1a07,
    0x4d21e58e52ea1a07,
    0x4d4cd205acd55966,
    0x4d6b13bfee95a2bc,
    0x4d844ecff2f03a0d,
    0x4da741b6813300ba,
    0x4dc741b6813300ba,
    0x4de33322fd48b212,
    0x4e033322fd48b212,
    0x4e233322fd48b212,
    0x4e4a86c4b863474e,
    0x4e62fa9f52e722d3,
    0x4e82fa9f52e722d3,
    0x4eabc1075d840457,
    0x4ecdf2a1602b3cb8,
    0x4ee2b7a4dc1b05f3,
    0x4f05af9bf37155ef,
    0x4f2a2bede54c5185,
    0x4f4311682dbdddb1,
    0x4f669eab0985179b,
    0x4f869eab0985179b,
    0x4fa51856420e8c52,
    0x4fcb2196364d750b,
    0x4feb2196364d750b,
    0x500b2196364d750b,
    0x50268ff564c92090,
    0x5040ebf80b96d86c,
    0x50698d4578b193d2,
    0x5083de73c5ab77e2,
    0x50a54a28326cfede,
    0x50c54a28326cfede,
    0x50eaca28cca06f75,
    0x51016e59932ab3bc,
    0x51216e59932ab3bc,
    0x5140809c95f020f7,
    0x5160809c95f020f7,
    0x5187fe9a7dd5da32,
    0x51af1e94f30c9db6,
    0x51cf1e94f30c9db6,
    0x51e3e51cbf3b4eca,
    0x5206b37acc2fa285,
    0x5223833fb10b23bd,
    0x5242b730ea42040b,
    0x526c45cd11154dfd,
    0x528c45cd11154dfd,
    0x52ac45cd11154dfd,
    0x52c0efac32bff376,
    0x52e0efac32bff376,
    0x530eb6c962abee5b,
    0x53229f4751019fda,
    0x534a8afbc4edb07d,
    0x53613b581c6ce090,
    0x538027a29aa61287,
    0x53a44599ae031379,
    0x53c44599ae031379,
    0x53e3127b6b3f4f22,
    0x540870a967710516,
    0x5421a8b94e0e8d12,
    0x5448cb19eebd359a,
    0x546a93b216e8dfbc,
    0x5483eec5912ea7cd,
    0x54a3eec5912ea7cd,
    0x54c376320791a6fd,
    0x54e9ded4c87d5e84,
    0x5503671f965e06e3,
    0x5521cb1497fca4fe,
    0x554979b4570b7a0e,
    0x556979b4570b7a0e,
    0x5588feca5b1a8cbd,
    0x55a2ddd2435024e2,
    0x55c2ddd2435024e2,
    0x55e98742fb527d64,
    0x5604abfe6de79797,
    0x562bd115457113b6,
    0x564f32cf2b089a94,
    0x5664582ff44b4254,
    0x5684582ff44b4254,
    0x56a8c091fdf23d65,
    0x56c3d5f07dba6231,
    0x56e64b413dd64fcb,
    0x570069c6d65d3e25,
    0x572de2d078fdf377,
    0x57424faaa5272710,
    0x576005b55082422e,
    0x578005b55082422e,
    0x57a0e9c81b67ad02,
    0x57ce2b9b851ea7fc,
    0x57e715b33a0d143e,
    0x580715b33a0d143e,
    0x582815afe8fccc46,
    0x584835af7edac347,
    0x58622043b9ac94b5,
    0x588cb5c087ce6ab4,
    0x58ab01ba31b74d0b,
    0x58c1179529d573dc,
    0x58e82f9a53010eef,
    0x590d2a079523fb6d,
    0x592aacd0f412852e,
    0x5945403807969f02,
    0x59609dbd23407407,
    0x598e3ca9b6c655cb,
    0x59ae3ca9b6c655cb,
    0x59c5d3907fdc623c,
    0x59ecc28f2b4ce84b,
    0x5a011bb9a5a2006d,
    0x5a2c934bd9ddba9b,
    0x5a46dd6b29edc33a,
    0x5a66dd6b29edc33a,
    0x5a86dd6b29edc33a,
    0x5aa5f8e86cc78cfc,
    0x5ac07aae5195a9bd,
    0x5ae372ec0e7828ec,
    0x5b0372ec0e7828ec,
    0x5b229cbcece25382,
    0x5b44d58ea64be345,
    0x5b6a9926be394007,
    0x5b833a6a0bad446d,
    0x5ba6e9c864f3423a,
    0x5bc8db29db402b0e,
    0x5be9578238d36543,
    0x5c02e28b9339bd65,
    0x5c2095c52c84ecff,
    0x5c41bc285fdf5532,
    0x5c69c487f2337e3a,
    0x5c89c487f2337e3a,
    0x5caac593e47e035b,
    0x5ccfba8ee030fbaa,
    0x5cea4668a5fe38e7,
    0x5d0f7af940f11670,
    0x5d23acdbc896ae06,
    0x5d41b52c34879c9f,
    0x5d61888cac3906f4,
    0x5d871fe9a2c6e0dc,
    0x5da157ef3a1528a5,
    0x5dc3e2769f052722,
    0x5defe85261f02860,
    0x5e07ee3dc9741e48,
    0x5e21f2ae571716b6,
    0x5e40f36bc4079573,
    0x5e6b88cbb4e32576,
    0x5e8b88cbb4e32576,
    0x5eab88cbb4e32576,
    0x5ecd90169d240838,
    0x5ee27a0e22368523,
    0x5f07833fa59d0dfd,
    0x5f2e509043ed71be,
    0x5f44a5ae52088007,
    0x5f660507de0cf1d1,
    0x5f860507de0cf1d1,
    0x5fab5a5ea40fa00c,
    0x5fc483c6fb0bb809,
    0x5feac9e64eef2a61,
    0x600776ae889d49fc,
    0x60219902e675f77d,
    0x604fa09304e2e934,
    0x6067b86e43aa2ee7,
    0x60820ba1d6a1d027,
    0x60af0585228f1561,
    0x60c8e3604368f8b0,
    0x60e2aa88328eba84,
    0x61011c522e582af9,
    0x61256913865b3e16,
    0x614b8a736a0d5561,
    0x6161fab41ebe9846,
    0x6181fab41ebe9846,
    0x61ab0a5ad59bd288,
    0x61c447c42034dde6,
    0x61e3b4801fd74c7e,
    0x6203b4801fd74c7e,
    0x62270362fa7f14a2,
    0x6240d8ade08a5675,
    0x62622e6cf95d097e,
    0x628764e7c41da562,
    0x62a8b28676cdcc5b,
    0x62c8b28676cdcc5b,
    0x62e8b28676cdcc5b,
    0x6306bf5d7abaf7c8,
    0x63210f861c0c39d6,
    0x63410f861c0c39d6,
    0x6368c4b5e7d3edb6,
    0x6384f6243f039841,
    0x63a4f6243f039841,
    0x63cb46267827b27e,
    0x63e29fd89961d61e,
    0x6404c96c11134d36,
    0x6424c96c11134d36,
    0x6444c96c11134d36,
    0x6464c96c11134d36,
    0x648959cedbbee908,
    0x64a3035b24cf2ec6,
    0x64c374df5fe03662,
    0x64e518acd4fe45e6,
    0x650518acd4fe45e6,
    0x652518acd4fe45e6,
    0x654f0feb7a52df64,
    0x65674bf09bbe278b,
    0x658d893a099137d3,
    0x65ad893a099137d3,
    0x65c435eccf87bbe8,
    0x65e5157705a306a2,
    0x6605157705a306a2,
    0x6620d09901565674,
    0x6640d09901565674,
    0x66683009e2e9e2eb,
    0x66883009e2e9e2eb,
    0x66af1f2ddcbe576a,
    0x66c3dfd068a48750,
    0x66e3dfd068a48750,
    0x670025d95505adf1,
    0x672ae30cc2e55861,
    0x674118b5283cb548,
    0x6760a62858fe0e2e,
    0x6785e13dc1c15d0e,
    0x67af8317487137dd,
    0x67c510026962d8bb,
    0x67e7c1b3f6c97dbf,
    0x680668db30162b3d,
    0x6824992749b12068,
    0x6844992749b12068,
    0x686cb44e86bc192b,
    0x6884e271aabf89dd,
    0x68a8cb6018bdd184,
    0x68c3bd7cdea6f380,
    0x68e3bd7cdea6f380,
    0x690009f574e7a5d8,
    0x692009f574e7a5d8,
    0x69441c5fceb2921d,
    0x69641c5fceb2921d,
    0x69805985878ceb96,
    0x69ae7e16d0c96f8a,
    0x69caf4f27e7a4e8d,
    0x69eaf4f27e7a4e8d,
    0x6a097e359bb79bb4,
    0x6a231ea834c9b4c7,
    0x6a41e47413bee7c2,
    0x6a698d57cc259529,
    0x6a8db41f3cb71d7b,
    0x6aadb41f3cb71d7b,
    0x6acdb41f3cb71d7b,
    0x6ae3ecb76de9e4be,
    0x6b0dfa8d18f2b3ee,
    0x6b2dfa8d18f2b3ee,
    0x6b4dfa8d18f2b3ee,
    0x6b629460d8eb8d38,
    0x6b829460d8eb8d38,
    0x6ba041d4bdce1b91,
    0x6bca6427ab7d6a9a,
    0x6bea6427ab7d6a9a,
    0x6c0f0c9d98414062,
    0x6c201b5d89b91aea,
    0x6c401b5d89b91aea,
    0x6c601b5d89b91aea,
    0x6c85ae169cea43d6,
    0x6ca5ae169cea43d6,
    0x6cc3517f5a800dea,
    0x6ce87172196d5822,
    0x6d07297569b20594,
    0x6d215f180f45842f,
    0x6d48c50c5644903f,
    0x6d68c50c5644903f,
    0x6d80347361386a54,
    0x6da276316f976fff,
    0x6dc817050190d2a4,
    0x6de21143c12c9dfb,
    0x6e0e038ad65a52cc,
    0x6e2682a820c3be19,
    0x6e4682a820c3be19,
    0x6e6bf3edfa4e619e,
    0x6e8d92330c3288a5,
    0x6ea5c61504acdcba,
    0x6ecf1da9499ae9de,
    0x6ee3d5675d5aea79,
    0x6f01b21e01142fb4,
    0x6f27369da61b3214,
    0x6f4168f63c94658f,
    0x6f6d5c8d09f26ebf,
    0x6f8d5c8d09f26ebf,
    0x6fa3138d13685ec8,
    0x6fc0b11b70fb52ef,
    0x6fe4a4629b09d4fe,
    0x700afeb41302d02a,
    0x7029681fb504915f,
    0x704190ff125307de,
    0x7069e0cf28408e96,
    0x7089e0cf28408e96,
    0x70a2e39e5cd19285,
    0x70c2e39e5cd19285,
    0x70e6de1f1aefcdbf,
    0x7100a7473c7012e8,
    0x7120a7473c7012e8,
    0x714f3d96fd674993,
    0x7160a93ff27aa5f8,
    0x7180a93ff27aa5f8,
    0x71a6e8d778c94d66,
    0x71c6e8d778c94d66,
    0x71eeea340a33754d,
    0x72052f4fe34c0e00,
    0x72228965e6e28c40,
    0x72408cf669936af0,
    0x72600dda8a3fa29c,
    0x72800342e24dfc95,
    0x72a00342e24dfc95,
    0x72c15652b043fd63,
    0x72e5a9417258933a,
    0x7308ea1a6de46d1d,
    0x73219ad821e62c60,
    0x7340b980869aaa28,
    0x7360107ed222087e,
    0x738203863b3edc90,
    0x73a203863b3edc90,
    0x73c0e34dd78aeec7,
    0x73ede3ebcbd4d572,
    0x7406fb0d0ab996fa,
    0x7428b544bb006698,
    0x744287f38c404cf2,
    0x7466bb62833eac47,
    0x7481d2340847046a,
    0x74a7bb5d6589a2dd,
    0x74c0523bb4d69289,
    0x74e359a70fac764e,
    0x7506ac5b262ca1ff,
    0x7526ac5b262ca1ff,
    0x7546ac5b262ca1ff,
    0x7566ac5b262ca1ff,
    0x7586ac5b262ca1ff,
    0x75a021c8af0b50c5,
    0x75ccfe482285f8ed,
    0x75ecfe482285f8ed,
    0x760cfe482285f8ed,
    0x7620354f948466b5,
    0x764d3861058868dc,
    0x7665ea48c4264ea5,
    0x768a5de46db774e4,
    0x76a3c66b524997ab,
    0x76c3c66b524997ab,
    0x76e2e8123c7c9834,
    0x7703d6cc82a3f3ca,
    0x77266f7d5bbd5db6,
    0x7745c9512577033b,
    0x776db67eff294283,
    0x778f08b14e1c4d0f,
    0x77af5d3de1d90fb2,
    0x77cb5c7300aebd13,
    0x77e58588f8cda276,
    0x7809abf499df9d6c,
    0x782340f77367b611,
    0x784340f77367b611,
    0x7862fb7afe08c773,
    0x78861f9a73ecff79,
    0x78a48d8ab8fae376,
    0x78c0332fe835389a,
    0x78e0332fe835389a,
    0x79056601b74c07a1,
    0x792212e7467faccc,
    0x794212e7467faccc,
    0x796212e7467faccc,
    0x79804e07a1d67b93,
    0x79aab7685b91aef6,
    0x79cc309215988102,
    0x79ec309215988102,
    0x7a0fce36f3ebfe43,
    0x7a2fce36f3ebfe43,
    0x7a44fc4137057ac6,
    0x7a6a5046cd1fcafe,
    0x7a8a5046cd1fcafe,
    0x7aa4117573397d42,
    0x7ac4117573397d42,
    0x7ae4117573397d42,
    0x7b0ed3b71dd7a104,
    0x7b271ec95661b8c3,
    0x7b4689d619d8032b,
    0x7b6e1987122b7e06,
    0x7b8e1987122b7e06,
    0x7bae1987122b7e06,
    0x7bc61b5424947a42,
    0x7beea17c46d23a3c,
    0x7c06f91d351dabad,
    0x7c2e109a7163f279,
    0x7c4e109a7163f279,
    0x7c6163dcd0e3814d,
    0x7c8bab62ed655019,
    0x7ca6879fdf2468b3,
    0x7cc18a3049236b73,
    0x7ce408e81423ea13,
    0x7d03b9111ac3da3f,
    0x7d23cd06d91bde34,
    0x7d43cd06d91bde34,
    0x7d678875916718db,
    0x7d878875916718db,
    0x7da3f8fea87156ce,
    0x7dc3f8fea87156ce,
    0x7dee009c53148be1,
    0x7e0e009c53148be1,
    0x7e2e009c53148be1,
    0x7e42f5b32e213e61,
    0x7e687b27c09ae521,
    0x7e87ca792e4bb049,
    0x7ea7f6a4d2df7d7f,
    0x7ec7e08f009596e4,
    0x7ee1e86b4070312b,
    0x7f036bf9a50c0440,
    0x7f20fe7a706a83b8,
    0x7f40631aa3422396,
    0x7f60156abcadf385,
    0x7f8b1c15d78e7c7c,
    0x7fa4551061aadd5d,
    0x7fc61a3db8c8d129,
    0x7fe61a3db8c8d129,
];

/// The correctly rounded reference.
fn reference(f: Unary, x: f64) -> f64 {
    match f {
        Unary::Exp => core_math::exp(x),
        Unary::Exp2 => core_math::exp2(x),
        Unary::Expm1 => core_math::expm1(x),
        Unary::Log => core_math::log(x),
        Unary::Log2 => core_math::log2(x),
        Unary::Log10 => core_math::log10(x),
        Unary::Log1p => core_math::log1p(x),
        Unary::Sin => core_math::sin(x),
        Unary::Cos => core_math::cos(x),
        Unary::Tan => core_math::tan(x),
        Unary::Sinh => core_math::sinh(x),
        Unary::Cosh => core_math::cosh(x),
        Unary::Tanh => core_math::tanh(x),
        Unary::Arcsin => core_math::asin(x),
        Unary::Arccos => core_math::acos(x),
        Unary::Arctan => core_math::atan(x),
        Unary::Arcsinh => core_math::asinh(x),
        Unary::Arccosh => core_math::acosh(x),
        Unary::Arctanh => core_math::atanh(x),
        Unary::Cbrt => core_math::cbrt(x),
        _ => unreachable!(),
    }
}

fn reference32(f: Unary, x: f32) -> f32 {
    match f {
        Unary::Exp => core_math::expf(x),
        Unary::Exp2 => core_math::exp2f(x),
        Unary::Expm1 => core_math::expm1f(x),
        Unary::Log => core_math::logf(x),
        Unary::Log2 => core_math::log2f(x),
        Unary::Log10 => core_math::log10f(x),
        Unary::Log1p => core_math::log1pf(x),
        Unary::Sin => core_math::sinf(x),
        Unary::Cos => core_math::cosf(x),
        Unary::Tan => core_math::tanf(x),
        Unary::Sinh => core_math::sinhf(x),
        Unary::Cosh => core_math::coshf(x),
        Unary::Tanh => core_math::tanhf(x),
        Unary::Arcsin => core_math::asinf(x),
        Unary::Arccos => core_math::acosf(x),
        Unary::Arctan => core_math::atanf(x),
        Unary::Arcsinh => core_math::asinhf(x),
        Unary::Arccosh => core_math::acoshf(x),
        Unary::Arctanh => core_math::atanhf(x),
        Unary::Cbrt => core_math::cbrtf(x),
        _ => unreachable!(),
    }
}

/// The worst case of one function on one path.
#[derive(Default)]
struct Worst {
    steps: u64,
    at: f64,
    got: f64,
    want: f64,
    exact: usize,
    count: usize,
}

impl Worst {
    fn see(&mut self, x: f64, got: f64, want: f64, s: u64) {
        self.count += 1;
        if s == 0 {
            self.exact += 1;
        }
        if s > self.steps {
            *self = Worst {
                steps: s,
                at: x,
                got,
                want,
                ..*self
            };
        }
    }
}

#[test]
fn accuracy_f64_every_function_and_path() {
    let mut failures = Vec::new();
    println!("| function | path | max ULP | correctly rounded | arguments |");
    for f in Unary::ALL {
        let xs = arguments(f);
        let want: Vec<f64> = xs.iter().map(|&x| reference(f, x)).collect();
        for isa in Isa::ALL {
            let mut got = xs.clone();
            if !f.map_with(isa, &mut got) {
                continue;
            }
            let mut w = Worst::default();
            for ((&x, &g), &c) in xs.iter().zip(&got).zip(&want) {
                w.see(x, g, c, steps(g, c));
            }
            if isa == Isa::active() {
                // The scalar functions are the active loop.
                for (&x, &g) in xs.iter().zip(&got).step_by(97) {
                    assert_eq!(
                        f.eval(x).to_bits(),
                        g.to_bits(),
                        "{}({x:e}) scalar",
                        f.name()
                    );
                }
            }
            println!(
                "| {} | {} | {} | {:.4}% | {} |",
                f.name(),
                isa.name(),
                w.steps,
                100.0 * w.exact as f64 / w.count as f64,
                w.count
            );
            if w.steps > 1 {
                failures.push(format!(
                    "{} on {}: {} ULP at {:e} (got {:e}, correctly rounded {:e})",
                    f.name(),
                    isa.name(),
                    w.steps,
                    w.at,
                    w.got,
                    w.want
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn accuracy_f32_every_function_and_path() {
    let mut failures = Vec::new();
    for f in Unary::ALL {
        // The float64 arguments, rounded, cover the same ranges.
        let xs: Vec<f32> = arguments(f).iter().map(|&x| x as f32).collect();
        let want: Vec<f32> = xs.iter().map(|&x| reference32(f, x)).collect();
        for isa in Isa::ALL {
            let mut got = xs.clone();
            if !f.map_f32_with(isa, &mut got) {
                continue;
            }
            let worst = worst32(xs.iter().copied(), &got, &want);
            let exact = xs
                .iter()
                .zip(&got)
                .zip(&want)
                .filter(|((_, g), c)| steps32(**g, **c) == 0)
                .count();
            println!(
                "| {}f | {} | {} | {:.4}% | {} |",
                f.name(),
                isa.name(),
                worst.0,
                100.0 * exact as f64 / xs.len() as f64,
                xs.len()
            );
            if worst.0 > 1 {
                failures.push(format!("{}f on {}: {worst:?}", f.name(), isa.name()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The float32 functions computed in float32 itself (`exp`, `log`),
/// over a sweep of every float32: each `STRIDE`-th bit pattern (about
/// 8.4 million, both signs, subnormals, infinities and NaNs included) on
/// every path. `exhaustive_native_f32` (ignored: minutes) checks all 2^32.
#[test]
fn native_f32_over_a_sweep_of_every_float32() {
    const STRIDE: u64 = 509;
    let xs: Vec<f32> = (0..1u64 << 32)
        .step_by(STRIDE as usize)
        .map(|b| f32::from_bits(b as u32))
        .collect();
    let failures: Vec<String> = native_f32_check(&xs)
        .into_iter()
        .filter_map(|(label, worst)| (worst.0 > 1).then(|| format!("{label}: {worst:?}")))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// [`native_f32_over_a_sweep_of_every_float32`] over every float32
/// (`cargo test --release -p dynd-math --test accuracy -- --ignored
/// --nocapture`), printing each function's and path's maximum.
#[test]
#[ignore]
fn exhaustive_native_f32() {
    let mut worst: Vec<(String, (u64, f32, f32, f32))> = Vec::new();
    for hi in 0..256u32 {
        let xs: Vec<f32> = (0..1u32 << 24)
            .map(|lo| f32::from_bits(hi << 24 | lo))
            .collect();
        for (label, w) in native_f32_check(&xs) {
            match worst.iter_mut().find(|(l, _)| *l == label) {
                Some((_, old)) if old.0 >= w.0 => {}
                Some((_, old)) => *old = w,
                None => worst.push((label, w)),
            }
        }
    }
    for (label, w) in &worst {
        println!(
            "{label}: at most {} ULP (worst {w:?}) over all 2^32 arguments",
            w.0
        );
    }
    assert!(worst.iter().all(|(_, w)| w.0 <= 1));
}

/// The worst case (ULP, argument, result, correctly rounded result) of
/// each native float32 function and path on `xs`.
fn native_f32_check(xs: &[f32]) -> Vec<(String, (u64, f32, f32, f32))> {
    let mut worsts = Vec::new();
    for f in [Unary::Exp, Unary::Log] {
        let want: Vec<f32> = xs.iter().map(|&x| reference32(f, x)).collect();
        for isa in Isa::ALL {
            let mut got = xs.to_vec();
            if !f.map_f32_with(isa, &mut got) {
                continue;
            }
            let worst = worst32(xs.iter().copied(), &got, &want);
            worsts.push((format!("{}f on {}", f.name(), isa.name()), worst));
        }
    }
    worsts
}

/// `pow`'s arguments: ordinary powers, bases near 1 with large exponents,
/// results near overflow and underflow, and negative bases.
fn pow_arguments() -> Vec<(f64, f64)> {
    let mut r = Rng(0x51af_d7ed_558c_cd01);
    let mut v = Vec::with_capacity(N);
    for i in 0..N {
        let (x, y) = match i % 5 {
            0 => (r.log_uniform(-20, 20, false), r.uniform(-50.0, 50.0)),
            1 => (
                1.0 + r.log_uniform(-40, -2, true),
                r.log_uniform(0, 40, true),
            ),
            2 => {
                // y log x near +-700: results near the ends of the range.
                let x = r.log_uniform(-1074, 1024, false);
                let t = r.uniform(-745.0, 709.7);
                (x, t / x.ln())
            }
            3 => (
                -r.log_uniform(-10, 10, false),
                ((r.next() % 200) as f64) - 100.0,
            ),
            _ => (r.log_uniform(-1074, 1024, false), r.uniform(-2.0, 2.0)),
        };
        v.push((x, y));
    }
    // Negative bases with exponents past 2^52 (every such float an
    // integer, odd ones only below 2^53), and the edges of the range.
    let two52 = 4_503_599_627_370_496.0_f64;
    for x in [
        -1.0,
        -2.0,
        -0.5,
        -1.0000000000000002,
        -0.9999999999999999,
        f64::from_bits(1),
        f64::MAX,
    ] {
        for y in [
            two52 - 1.0,
            two52,
            two52 + 1.0,
            two52 + 3.0,
            2.0 * two52 - 1.0,
            2.0 * two52,
            2.0 * two52 + 2.0,
            1.4929381599246638e16,
            1e300,
            0.5,
            -0.5,
        ] {
            v.extend([(x, y), (x, -y)]);
        }
    }
    v
}

/// `powf`'s arguments, in float32's own ranges: ordinary powers over the
/// whole exponent range, bases near 1 with large exponents, results near
/// overflow and underflow (subnormal ones included), and negative bases
/// with integer and non-integer exponents.
fn powf_arguments() -> Vec<(f32, f32)> {
    let mut r = Rng(0xf32f_32f3_2f32_f32f);
    (0..N)
        .map(|i| {
            let (x, y) = match i % 4 {
                0 => (r.log_uniform(-149, 128, false), r.uniform(-4.0, 4.0)),
                1 => (1.0 + r.log_uniform(-24, -1, true), r.uniform(-1e6, 1e6)),
                2 => {
                    let x = r.log_uniform(-30, 30, false);
                    let t = if r.next() & 1 == 0 {
                        r.uniform(85.0, 92.0)
                    } else {
                        r.uniform(-108.0, -85.0)
                    };
                    (x, t / x.ln())
                }
                _ => {
                    let x = -r.log_uniform(-8, 8, false);
                    let y = (r.next() % 61) as f64 - 30.0;
                    (x, if r.next() & 3 == 0 { y + 0.5 } else { y })
                }
            };
            (x as f32, y as f32)
        })
        .collect()
}

#[test]
fn accuracy_powf_every_path() {
    let args = powf_arguments();
    let want: Vec<f32> = args.iter().map(|&(x, y)| core_math::powf(x, y)).collect();
    let ys: Vec<f32> = args.iter().map(|a| a.1).collect();
    let mut failures = Vec::new();
    for isa in Isa::ALL {
        let mut got: Vec<f32> = args.iter().map(|a| a.0).collect();
        if !Binary::Pow.map_f32_with(isa, &mut got, &ys) {
            continue;
        }
        let (mut worst, mut exact) = (0, 0);
        for (&(x, y), (&g, &c)) in args.iter().zip(got.iter().zip(&want)) {
            let s = steps32(g, c);
            exact += usize::from(s == 0);
            if s > 1 {
                failures.push(format!(
                    "powf({x:e}, {y:e}) on {}: {g:e}, want {c:e} ({s} ULP)",
                    isa.name()
                ));
            }
            worst = worst.max(s);
        }
        println!(
            "| powf | {} | {worst} | {:.4}% | {} |",
            isa.name(),
            100.0 * exact as f64 / args.len() as f64,
            args.len()
        );
    }
    failures.truncate(20);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn accuracy_pow_every_path() {
    let args = pow_arguments();
    let want: Vec<f64> = args.iter().map(|&(x, y)| core_math::pow(x, y)).collect();
    let ys: Vec<f64> = args.iter().map(|a| a.1).collect();
    let mut failures = Vec::new();
    for isa in Isa::ALL {
        let mut got: Vec<f64> = args.iter().map(|a| a.0).collect();
        if !Binary::Pow.map_with(isa, &mut got, &ys) {
            continue;
        }
        let mut w = Worst::default();
        for ((&(x, y), &g), &c) in args.iter().zip(&got).zip(&want) {
            let s = steps(g, c);
            if s > w.steps {
                failures.push(format!(
                    "pow({x:e}, {y:e}) on {}: {g:e}, want {c:e} ({s} ULP)",
                    isa.name()
                ));
            }
            w.see(x, g, c, s);
        }
        println!(
            "| pow | {} | {} | {:.4}% | {} |",
            isa.name(),
            w.steps,
            100.0 * w.exact as f64 / w.count as f64,
            w.count
        );
        let (mut gx, gy): (Vec<f32>, Vec<f32>) =
            args.iter().map(|&(x, y)| (x as f32, y as f32)).unzip();
        let want32: Vec<f32> = gx
            .iter()
            .zip(&gy)
            .map(|(&x, &y)| core_math::powf(x, y))
            .collect();
        let xs32 = gx.clone();
        Binary::Pow.map_f32_with(isa, &mut gx, &gy);
        for ((&x, (&g, &c)), &y) in xs32.iter().zip(gx.iter().zip(&want32)).zip(&gy) {
            assert!(
                steps32(g, c) <= 1,
                "powf({x:e}, {y:e}) on {}: {g:e}, want {c:e}",
                isa.name()
            );
        }
    }
    failures.retain(|f| !f.ends_with("(1 ULP)"));
    assert!(
        failures.is_empty(),
        "{}",
        failures[..failures.len().min(20)].join("\n")
    );
}

/// Pairs for `arctan2` and `hypot`: over the whole range, near each
/// other's magnitude, and far apart.
fn pair_arguments() -> Vec<(f64, f64)> {
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    (0..N)
        .map(|i| match i % 4 {
            0 => (
                r.log_uniform(-1074, 1024, true),
                r.log_uniform(-1074, 1024, true),
            ),
            1 => (r.uniform(-2.0, 2.0), r.uniform(-2.0, 2.0)),
            2 => {
                let x = r.log_uniform(-500, 500, true);
                (x * r.uniform(0.5, 2.0), x)
            }
            _ => (r.log_uniform(-40, 40, true), r.log_uniform(-40, 40, true)),
        })
        .collect()
}

#[test]
fn accuracy_arctan2_and_hypot_every_path() {
    let args = pair_arguments();
    let mut failures = Vec::new();
    for (f, reference, reference32) in [
        (
            Binary::Arctan2,
            core_math::atan2 as fn(f64, f64) -> f64,
            core_math::atan2f as fn(f32, f32) -> f32,
        ),
        (Binary::Hypot, core_math::hypot, core_math::hypotf),
    ] {
        let want: Vec<f64> = args.iter().map(|&(a, b)| reference(a, b)).collect();
        let second: Vec<f64> = args.iter().map(|a| a.1).collect();
        for isa in Isa::ALL {
            let mut got: Vec<f64> = args.iter().map(|a| a.0).collect();
            if !f.map_with(isa, &mut got, &second) {
                continue;
            }
            let mut w = Worst::default();
            for ((&(a, _), &g), &c) in args.iter().zip(&got).zip(&want) {
                w.see(a, g, c, steps(g, c));
            }
            println!(
                "| {} | {} | {} | {:.4}% | {} |",
                f.name(),
                isa.name(),
                w.steps,
                100.0 * w.exact as f64 / w.count as f64,
                w.count
            );
            if w.steps > 1 {
                let i = args
                    .iter()
                    .position(|&(a, _)| a.to_bits() == w.at.to_bits())
                    .unwrap();
                failures.push(format!(
                    "{}({:e}, {:e}) on {}: {:e}, want {:e}",
                    f.name(),
                    args[i].0,
                    args[i].1,
                    isa.name(),
                    w.got,
                    w.want
                ));
            }
            let (mut a32, b32): (Vec<f32>, Vec<f32>) =
                args.iter().map(|&(a, b)| (a as f32, b as f32)).unzip();
            let want32: Vec<f32> = a32
                .iter()
                .zip(&b32)
                .map(|(&a, &b)| reference32(a, b))
                .collect();
            let orig = a32.clone();
            f.map_f32_with(isa, &mut a32, &b32);
            for (((&a, &b), &g), &c) in orig.iter().zip(&b32).zip(&a32).zip(&want32) {
                if steps32(g, c) > 1 {
                    failures.push(format!(
                        "{}f({a:e}, {b:e}) on {}: {g:e}, want {c:e}",
                        f.name(),
                        isa.name()
                    ));
                    break;
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn special_values_on_every_path() {
    let inf = f64::INFINITY;
    let tiny = 5e-324;
    let unary: &[(Unary, f64, f64)] = &[
        (Unary::Exp, 0.0, 1.0),
        (Unary::Exp, -0.0, 1.0),
        (Unary::Exp, inf, inf),
        (Unary::Exp, -inf, 0.0),
        (Unary::Exp, 709.8, inf),
        (Unary::Exp, -745.2, 0.0),
        (Unary::Exp, -745.1, tiny),
        (Unary::Exp2, 1024.0, inf),
        (Unary::Exp2, -1074.0, tiny),
        (Unary::Exp2, -1075.0, 0.0),
        (Unary::Exp2, 10.0, 1024.0),
        (Unary::Expm1, -0.0, -0.0),
        (Unary::Expm1, 0.0, 0.0),
        (Unary::Expm1, -inf, -1.0),
        (Unary::Expm1, inf, inf),
        (Unary::Expm1, tiny, tiny),
        (Unary::Log, 1.0, 0.0),
        (Unary::Log, 0.0, -inf),
        (Unary::Log, -0.0, -inf),
        (Unary::Log, inf, inf),
        (Unary::Log2, 1024.0, 10.0),
        (Unary::Log2, tiny, -1074.0),
        (Unary::Log10, 1000.0, 3.0),
        (Unary::Log10, 1e-300, -300.0),
        (Unary::Log1p, -1.0, -inf),
        (Unary::Log1p, -0.0, -0.0),
        (Unary::Log1p, tiny, tiny),
        (Unary::Log1p, inf, inf),
        (Unary::Sin, 0.0, 0.0),
        (Unary::Sin, -0.0, -0.0),
        (Unary::Sin, tiny, tiny),
        (Unary::Cos, 0.0, 1.0),
        (Unary::Cos, -0.0, 1.0),
        (Unary::Tan, -0.0, -0.0),
        (Unary::Sinh, -0.0, -0.0),
        (Unary::Sinh, 711.0, inf),
        (Unary::Sinh, -inf, -inf),
        (Unary::Cosh, 0.0, 1.0),
        (Unary::Cosh, -inf, inf),
        (Unary::Cosh, 711.0, inf),
        (Unary::Tanh, -0.0, -0.0),
        (Unary::Tanh, inf, 1.0),
        (Unary::Tanh, -inf, -1.0),
        (Unary::Tanh, 30.0, 1.0),
        (Unary::Arcsin, -0.0, -0.0),
        (Unary::Arcsin, 1.0, std::f64::consts::FRAC_PI_2),
        (Unary::Arccos, 1.0, 0.0),
        (Unary::Arccos, -1.0, std::f64::consts::PI),
        (Unary::Arccos, 0.0, std::f64::consts::FRAC_PI_2),
        (Unary::Arctan, -0.0, -0.0),
        (Unary::Arctan, inf, std::f64::consts::FRAC_PI_2),
        (Unary::Arctan, -inf, -std::f64::consts::FRAC_PI_2),
        (Unary::Arctan, 1.0, std::f64::consts::FRAC_PI_4),
        (Unary::Arcsinh, -0.0, -0.0),
        (Unary::Arcsinh, -inf, -inf),
        (Unary::Arccosh, 1.0, 0.0),
        (Unary::Arccosh, inf, inf),
        (Unary::Arctanh, -0.0, -0.0),
        (Unary::Arctanh, 1.0, inf),
        (Unary::Arctanh, -1.0, -inf),
        (Unary::Cbrt, -0.0, -0.0),
        (Unary::Cbrt, 27.0, 3.0),
        (Unary::Cbrt, -inf, -inf),
        (Unary::Cbrt, -8.0, -2.0),
    ];
    let nan_in: &[(Unary, f64)] = &[
        (Unary::Log, -1.0),
        (Unary::Log, -inf),
        (Unary::Log2, -tiny),
        (Unary::Log1p, -1.5),
        (Unary::Log1p, -inf),
        (Unary::Sin, inf),
        (Unary::Cos, -inf),
        (Unary::Tan, inf),
        (Unary::Arcsin, 1.5),
        (Unary::Arccos, -1.0000000000000002),
        (Unary::Arccosh, 0.5),
        (Unary::Arccosh, -inf),
        (Unary::Arctanh, 2.0),
    ];
    for isa in Isa::ALL.into_iter().filter(|i| i.available()) {
        // arctan2 and hypot at zeros, infinities and NaNs, against C.
        let special2 = [0.0, -0.0, 1.0, -1.0, inf, -inf, f64::NAN, tiny];
        for (f, c) in [
            (Binary::Arctan2, core_math::atan2 as fn(f64, f64) -> f64),
            (Binary::Hypot, core_math::hypot),
        ] {
            for &a in &special2 {
                for &b in &special2 {
                    let mut v = [a];
                    f.map_with(isa, &mut v, &[b]);
                    let want = c(a, b);
                    assert!(
                        v[0].to_bits() == want.to_bits() || (v[0].is_nan() && want.is_nan()),
                        "{}({a:e}, {b:e}) on {}: {:e}, want {want:e}",
                        f.name(),
                        isa.name(),
                        v[0]
                    );
                }
            }
        }
        for &(f, x, want) in unary {
            let mut v = [x];
            f.map_with(isa, &mut v);
            assert_eq!(
                v[0].to_bits(),
                want.to_bits(),
                "{}({x:e}) on {}: {:e}",
                f.name(),
                isa.name(),
                v[0]
            );
        }
        for &(f, x) in nan_in {
            let mut v = [x];
            f.map_with(isa, &mut v);
            assert!(v[0].is_nan(), "{}({x:e}) on {}", f.name(), isa.name());
        }
        for f in Unary::ALL {
            let mut v = [f64::NAN];
            f.map_with(isa, &mut v);
            assert!(v[0].is_nan(), "{}(NaN) on {}", f.name(), isa.name());
            let mut v = [f32::NAN];
            f.map_f32_with(isa, &mut v);
            assert!(v[0].is_nan(), "{}f(NaN) on {}", f.name(), isa.name());
        }
        let inf32 = f32::INFINITY;
        let single: &[(Unary, f32, f32)] = &[
            (Unary::Exp, 0.0, 1.0),
            (Unary::Exp, -inf32, 0.0),
            (Unary::Exp, inf32, inf32),
            (Unary::Exp, 89.0, inf32),
            (Unary::Exp, -104.0, 0.0),
            (Unary::Exp, -103.0, core_math::expf(-103.0)),
            (Unary::Log, 1.0, 0.0),
            (Unary::Log, 0.0, -inf32),
            (Unary::Log, inf32, inf32),
            (Unary::Log, 1e-45, core_math::logf(1e-45)),
            (Unary::Sin, -0.0, -0.0),
            (Unary::Sin, 1e-40, 1e-40),
            (Unary::Sin, 1e30, core_math::sinf(1e30)),
            (Unary::Cos, 0.0, 1.0),
            (Unary::Cos, -inf32, f32::NAN),
            (Unary::Tanh, -0.0, -0.0),
            (Unary::Tanh, inf32, 1.0),
            (Unary::Tanh, -inf32, -1.0),
            (Unary::Tanh, 1e-30, 1e-30),
        ];
        for &(f, x, want) in single {
            let mut v = [x];
            f.map_f32_with(isa, &mut v);
            assert!(
                v[0].to_bits() == want.to_bits() || (v[0].is_nan() && want.is_nan()),
                "{}f({x:e}) on {}: {:e}, want {want:e}",
                f.name(),
                isa.name(),
                v[0]
            );
        }
        // pow: C99 Annex F, F.9.4.4, against the C reference.
        let special = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -0.5,
            2.0,
            -2.0,
            3.0,
            -3.0,
            inf,
            -inf,
            f64::NAN,
            tiny,
            1e308,
        ];
        for &x in &special {
            for &y in &special {
                let mut v = [x];
                Binary::Pow.map_with(isa, &mut v, &[y]);
                let want = core_math::pow(x, y);
                assert!(
                    steps(v[0], want) == 0 && (v[0].is_nan() || v[0].to_bits() == want.to_bits()),
                    "pow({x:e}, {y:e}) on {}: {:e}, want {want:e}",
                    isa.name(),
                    v[0]
                );
            }
        }
    }
}

#[test]
fn sincos_is_sin_and_cos() {
    let xs = arguments(Unary::Sin);
    for isa in Isa::ALL.into_iter().filter(|i| i.available()) {
        let (mut s, mut c) = (vec![0.0; xs.len()], vec![0.0; xs.len()]);
        dynd_math::sincos_slices_with(isa, &xs, &mut s, &mut c);
        let (mut s2, mut c2) = (xs.clone(), xs.clone());
        Unary::Sin.map_with(isa, &mut s2);
        Unary::Cos.map_with(isa, &mut c2);
        assert!(
            s.iter().zip(&s2).all(|(a, b)| a.to_bits() == b.to_bits()),
            "sincos's sin on {}",
            isa.name()
        );
        assert!(
            c.iter().zip(&c2).all(|(a, b)| a.to_bits() == b.to_bits()),
            "sincos's cos on {}",
            isa.name()
        );
    }
}

/// Whether two slices hold the same bits.
fn same_bits<T: Copy + Into<f64>>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(&x, &y)| x.into().to_bits() == y.into().to_bits())
}

#[test]
fn into_and_in_place_give_the_same_bits() {
    // A length that is no multiple of any chunk or staging size.
    const LEN: usize = (1 << 15) + 37;
    for isa in Isa::ALL.into_iter().filter(|i| i.available()) {
        for f in Unary::ALL {
            let xs = &arguments(f)[..LEN];
            let mut in_place = xs.to_vec();
            f.map_with(isa, &mut in_place);
            let mut out = vec![0.0; LEN];
            assert!(f.map_into_with(isa, xs, &mut out));
            assert!(same_bits(&out, &in_place), "{} on {}", f.name(), isa.name());

            let xs32: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
            let mut in_place = xs32.clone();
            f.map_f32_with(isa, &mut in_place);
            let mut out = vec![0.0f32; LEN];
            f.map_into_with(isa, &xs32, &mut out);
            assert!(
                same_bits(&out, &in_place),
                "{}f on {}",
                f.name(),
                isa.name()
            );
        }
        let args = pair_arguments();
        let (xs, ys): (Vec<f64>, Vec<f64>) = args[..LEN].iter().copied().unzip();
        for f in Binary::ALL {
            let mut in_place = xs.clone();
            f.map_with(isa, &mut in_place, &ys);
            let mut out = vec![0.0; LEN];
            assert!(f.map_into_with(isa, &xs, &ys, &mut out));
            assert!(same_bits(&out, &in_place), "{} on {}", f.name(), isa.name());

            let (xs32, ys32): (Vec<f32>, Vec<f32>) = args[..LEN]
                .iter()
                .map(|&(x, y)| (x as f32, y as f32))
                .unzip();
            let mut in_place = xs32.clone();
            f.map_f32_with(isa, &mut in_place, &ys32);
            let mut out = vec![0.0f32; LEN];
            f.map_into_with(isa, &xs32, &ys32, &mut out);
            assert!(
                same_bits(&out, &in_place),
                "{}f on {}",
                f.name(),
                isa.name()
            );
        }
    }
}
