//! Bench charts drawn with the `plotters` crate's SVG backend (no font files are read: plotters' built-in
//! text metrics size the labels, and the SVG names the generic `sans-serif` family): nodes/s per position
//! with Stockfish's beside it and the aggregate, or nodes/s against depth for one position.

use crate::error::{Error, Result, Setting, SettingError};
use plotters::prelude::*;

/// Colour of perftlab's bars and line.
const OURS: RGBColor = RGBColor(37, 99, 235);
/// Colour of Stockfish's.
const STOCKFISH: RGBColor = RGBColor(234, 88, 12);

/// One group of bars: a position (or the aggregate) and the speeds measured on it, in nodes per second.
#[derive(Clone, Debug)]
pub struct Bar {
    /// The position's name (`start`, `kiwipete`, …, `total`).
    pub label: String,
    /// perftlab's nodes/s.
    pub ours: f64,
    /// Stockfish's nodes/s, when it ran beside.
    pub stockfish: Option<f64>,
}

/// One point of a depth sweep: depth, perftlab's nodes/s, Stockfish's nodes/s.
pub type DepthPoint = (u32, f64, Option<f64>);

fn plot_error(e: impl std::fmt::Display) -> Error {
    SettingError::new(Setting::Plot, None, format!("cannot draw the chart: {e}")).into()
}

/// A bar chart (SVG document) of nodes/s per position; `backend` names perftlab's bars.
///
/// # Errors
/// [`Error::Setting`] of [`Setting::Plot`] when plotters fails.
pub fn speed_bars(title: &str, backend: &str, bars: &[Bar]) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (820, 460)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let top = bars
            .iter()
            .flat_map(|b| [Some(b.ours), b.stockfish])
            .flatten()
            .fold(0.0f64, f64::max)
            / 1e6;
        let n = bars.len() as f64;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(64)
            .build_cartesian_2d(-0.5..n - 0.5, 0.0..(top * 1.2).max(1e-3))
            .map_err(plot_error)?;
        // One label per bar group, at the integer positions.
        let label = |v: &f64| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 {
                bars.get(i as usize)
                    .map_or(String::new(), |b| b.label.clone())
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(bars.len())
            .x_label_formatter(&label)
            .y_desc("million nodes per second")
            .axis_desc_style(("sans-serif", 14))
            .label_style(("sans-serif", 13))
            .draw()
            .map_err(plot_error)?;
        let with_sf = bars.iter().any(|b| b.stockfish.is_some());
        let width = if with_sf { 0.38 } else { 0.6 };
        // (x of the bar's left edge, value, colour) for every bar.
        let mut rects = Vec::new();
        for (i, b) in bars.iter().enumerate() {
            let centre = i as f64;
            match b.stockfish {
                Some(sf) => {
                    rects.push((centre - width, b.ours, OURS));
                    rects.push((centre, sf, STOCKFISH));
                }
                None => rects.push((centre - width / 2.0, b.ours, OURS)),
            }
        }
        chart
            .draw_series(rects.iter().map(|&(x, v, colour)| {
                Rectangle::new([(x, 0.0), (x + width, v / 1e6)], colour.filled())
            }))
            .map_err(plot_error)?;
        chart
            .draw_series(rects.iter().map(|&(x, v, _)| {
                Text::new(
                    format!("{:.1}", v / 1e6),
                    (x + width * 0.1, v / 1e6 + top * 0.05),
                    ("sans-serif", 12),
                )
            }))
            .map_err(plot_error)?;
        legend(&root, backend, with_sf)?;
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}

/// The legend in the top right corner (drawn by hand: plotters' series legend needs a series per colour).
fn legend(
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    backend: &str,
    with_sf: bool,
) -> Result<()> {
    let (w, _) = root.dim_in_pixel();
    let mut entries = vec![(format!("perftlab ({backend})"), OURS)];
    if with_sf {
        entries.push(("Stockfish".to_string(), STOCKFISH));
    }
    for (k, (name, colour)) in entries.iter().enumerate() {
        let y = 44 + 20 * k as i32;
        let x = w as i32 - 200;
        root.draw(&Rectangle::new([(x, y), (x + 14, y + 14)], colour.filled()))
            .map_err(plot_error)?;
        root.draw(&Text::new(name.clone(), (x + 20, y), ("sans-serif", 13)))
            .map_err(plot_error)?;
    }
    Ok(())
}

/// A line chart (SVG document) of nodes/s against depth.
///
/// # Errors
/// [`Error::Setting`] (the chart, [`Setting::Plot`]) when plotters fails; [`Setting::Depths`] when there are
/// no points.
pub fn speed_by_depth(title: &str, backend: &str, points: &[DepthPoint]) -> Result<String> {
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return Err(SettingError::new(Setting::Depths, None, "no depth to plot").into());
    };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (820, 460)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let top = points
            .iter()
            .flat_map(|p| [Some(p.1), p.2])
            .flatten()
            .fold(0.0f64, f64::max)
            / 1e6;
        let (lo, hi) = (first.0, last.0.max(first.0 + 1));
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(lo..hi, 0.0..(top * 1.15).max(1e-3))
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_labels((hi - lo + 1) as usize)
            .x_desc("depth (plies)")
            .y_desc("million nodes per second")
            .axis_desc_style(("sans-serif", 14))
            .label_style(("sans-serif", 13))
            .draw()
            .map_err(plot_error)?;
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|p| (p.0, p.1 / 1e6)),
                OURS.stroke_width(3),
            ))
            .map_err(plot_error)?;
        chart
            .draw_series(
                points
                    .iter()
                    .map(|p| Circle::new((p.0, p.1 / 1e6), 5, OURS.filled())),
            )
            .map_err(plot_error)?;
        let sf: Vec<(u32, f64)> = points
            .iter()
            .filter_map(|p| Some((p.0, p.2? / 1e6)))
            .collect();
        if !sf.is_empty() {
            chart
                .draw_series(LineSeries::new(
                    sf.iter().copied(),
                    STOCKFISH.stroke_width(3),
                ))
                .map_err(plot_error)?;
            chart
                .draw_series(
                    sf.iter()
                        .map(|&(d, v)| Circle::new((d, v), 5, STOCKFISH.filled())),
                )
                .map_err(plot_error)?;
        }
        legend(&root, backend, !sf.is_empty())?;
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}
