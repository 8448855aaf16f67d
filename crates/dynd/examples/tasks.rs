//! A newcomer's tasks, each in a few lines of the typed API: per-row
//! statistics of a ragged array, per-row z-scores, a four-argument
//! `#[elemental]` fn over a million points, sums and means that skip
//! missing values, and an arithmetic expression over five arrays.
//!
//! Run it with `cargo run --release --example tasks`.

use std::time::Instant;

use dynd::prelude::*;

/// Great-circle distance in km between two points given in degrees.
#[elemental]
fn haversine(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
    let (dp, dl) = (p2 - p1, (lon2 - lon1).to_radians());
    let a = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    2.0 * 6371.0 * a.sqrt().asin()
}

/// A reproducible stream of numbers in `[0, 1)`.
fn uniform(seed: u64) -> impl FnMut() -> f64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Session durations per user: a ragged array (rows of any length).
    let sessions = nd::array![[12.0, 30.5, 7.25], [45.0], [3.0, 4.5, 60.0, 8.0]];
    println!("sessions            {sessions}  ({})", sessions.ty());
    println!("per-user total      {}", sessions.sum_axis(1)?);
    println!("per-user mean       {}", sessions.mean_axis(1)?);
    let from_zero = AxisOptions::new().axis(1).initial(0.0);
    println!("per-user longest    {}", sessions.max_with(&from_zero)?);

    // Per-row z-scores: the row's mean and std kept as a dimension of
    // size 1, so they broadcast against the row's values.
    let keep = AxisOptions::new().axis(1).keepdims(true);
    let (mean, std) = (sessions.mean_with(&keep)?, sessions.std_with(&keep)?);
    let z = ((&sessions - &mean) / &std).eval()?;
    println!("per-user z-scores   {z}");

    // A four-argument fn over a million points (two separate arrays per
    // coordinate), against one fixed point.
    let n = 1_000_000;
    let mut next = uniform(7);
    let lat: Vec<f64> = (0..n).map(|_| next() * 180.0 - 90.0).collect();
    let lon: Vec<f64> = (0..n).map(|_| next() * 360.0 - 180.0).collect();
    let (lat, lon) = (nd::Array::from_vec(lat), nd::Array::from_vec(lon));
    let start = Instant::now();
    let km = haversine::call(lat, lon, 51.5074, -0.1278)?;
    let took = start.elapsed();
    println!(
        "haversine, 1e6 pts  mean {:.0} km, max {:.0} km, in {:.1} ms",
        km.mean()?.get::<f64>(&[])?,
        km.max()?.get::<f64>(&[])?,
        took.as_secs_f64() * 1e3
    );

    // Missing values: NA propagates unless skipped; count counts values.
    let scores = nd::Array::from_json(
        "[[7.5, null, 9], [null], [6, 8]]",
        Some(&datashape!("3 * var * ?float64")),
    )?;
    let skip = AxisOptions::new().axis(1).skip_na(true);
    println!("scores              {scores}  ({})", scores.ty());
    println!("sum (NA propagates) {}", scores.sum_axis(1)?);
    println!("sum, NA skipped     {}", scores.sum_with(&skip)?);
    println!("mean, NA skipped    {}", scores.mean_with(&skip)?);
    println!("count of values     {}", scores.count_axis(1)?);

    // Operators build an expression; eval runs it (errors are Results).
    let col = |k: f64| nd::Array::from_vec((0..5).map(|i| f64::from(i) + k).collect());
    let (a, b, c, d, e) = (col(0.0), col(1.0), col(2.0), col(3.0), col(4.0));
    let expr = &a * &b + &c * &d - &e;
    println!("{expr} = {}", expr.eval()?);
    let err = (&a + &nd::array![1.0, 2.0]).eval().unwrap_err();
    println!("a + [1, 2]          -> error: {err}");
    Ok(())
}
