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
    v.retain(|x| !x.is_nan());
    v
}

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
            if isa == Isa::Portable {
                // The scalar functions are the portable loop.
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
