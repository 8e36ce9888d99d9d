//! Plots of a sweep (plotters): white wins, black wins and draws against the swept
//! point, with their 95% Wilson intervals as error bars, above the mean game length
//! with its 95% interval. `.svg` files carry their text as SVG text; `.png` files get
//! their text from a built-in 8×8 pixel font (font8x8), so no system font library is
//! needed on any machine.

use font8x8::UnicodeFonts;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};

use crate::LabError;
use crate::sweep::Point;

const SIZE: (u32, u32) = (960, 720);

/// Draws the sweep into `path` (`.png` or `.svg`, chosen by the extension).
pub fn write(path: &std::path::Path, title: &str, points: &[Point]) -> Result<(), LabError> {
    let shown = path.display().to_string();
    let fail = |why: String| LabError::Plot { path: shown.clone(), why };
    if points.is_empty() {
        return Err(fail("nothing to plot".into()));
    }
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("svg") => {
            let root = SVGBackend::new(path, SIZE).into_drawing_area();
            draw(&root, title, points).map_err(|e| fail(e.to_string()))?;
            root.present().map_err(|e| fail(e.to_string()))
        }
        Some("png") => {
            let root = PixelText(BitMapBackend::new(path, SIZE)).into_drawing_area();
            draw(&root, title, points).map_err(|e| fail(e.to_string()))?;
            root.present().map_err(|e| fail(e.to_string()))
        }
        _ => Err(fail("a plot is written as .png or .svg".into())),
    }
}

type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, title: &str, points: &[Point]) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let root = root.titled(title, ("sans-serif", 22))?;
    let (top, bottom) = root.split_vertically(SIZE.1 / 2);
    let n = points.len();
    let xs = -0.5f64..(n as f64 - 0.5);
    let labels: Vec<String> = points
        .iter()
        .map(|p| p.at.iter().map(|s| s.rsplit_once('=').map_or(s.as_str(), |(_, v)| v)).collect::<Vec<_>>().join(","))
        .collect();
    let label = |x: &f64| {
        let i = x.round();
        if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < n { labels[i as usize].clone() } else { String::new() }
    };
    let key =
        points[0].at.iter().map(|s| s.split_once('=').map_or(s.as_str(), |(k, _)| k)).collect::<Vec<_>>().join(", ");

    let mut rates = ChartBuilder::on(&top)
        .caption("share of games (95% Wilson intervals)", ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(xs.clone(), 0f64..1f64)?;
    rates.configure_mesh().x_labels(n + 1).x_label_formatter(&label).y_labels(6).draw()?;
    type Pick = fn(&crate::Report) -> crate::metrics::Rate;
    let series: [(&str, RGBColor, Pick); 3] = [
        ("white wins", RGBColor(40, 90, 200), |r| r.white_wins),
        ("black wins", RGBColor(30, 30, 30), |r| r.black_wins),
        ("draws", RGBColor(200, 120, 20), |r| r.draws),
    ];
    for (name, colour, pick) in series {
        let at = |i: usize| pick(&points[i].batch.report);
        rates
            .draw_series(LineSeries::new((0..n).map(|i| (i as f64, at(i).value)), Color::stroke_width(&colour, 2)))?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], Color::stroke_width(&colour, 2)));
        rates.draw_series((0..n).map(|i| {
            let r = at(i);
            ErrorBar::new_vertical(i as f64, r.low, r.value, r.high, colour.filled(), 8)
        }))?;
    }
    rates
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;

    let lo = points.iter().map(|p| p.batch.report.length.low).fold(f64::INFINITY, f64::min).max(0.0);
    let hi = points.iter().map(|p| p.batch.report.length.high).fold(0.0, f64::max);
    let pad = ((hi - lo) * 0.1).max(1.0);
    let mut length = ChartBuilder::on(&bottom)
        .caption(format!("mean plies per game (95% interval) against {key}"), ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(xs, (lo - pad).max(0.0)..hi + pad)?;
    length.configure_mesh().x_labels(n + 1).x_label_formatter(&label).y_labels(6).draw()?;
    let colour = RGBColor(20, 140, 60);
    let l = |i: usize| points[i].batch.report.length;
    length.draw_series(LineSeries::new((0..n).map(|i| (i as f64, l(i).mean)), Color::stroke_width(&colour, 2)))?;
    length.draw_series(
        (0..n).map(|i| ErrorBar::new_vertical(i as f64, l(i).low, l(i).mean, l(i).high, colour.filled(), 8)),
    )?;
    Ok(())
}

/// A bitmap backend whose text is drawn from an 8×8 pixel font, scaled to the size asked.
struct PixelText<'a>(BitMapBackend<'a>);

fn scale(size: f64) -> i32 {
    ((size / 12.0).round() as i32).max(1)
}

impl DrawingBackend for PixelText<'_> {
    type ErrorType = <BitMapBackend<'static> as DrawingBackend>::ErrorType;
    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.present()
    }
    fn draw_pixel(&mut self, p: BackendCoord, c: BackendColor) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_pixel(p, c)
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_line(a, b, s)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_rect(a, b, s, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        s: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.fill_polygon(vert, s)
    }
    fn estimate_text_size<T: BackendTextStyle>(
        &self,
        text: &str,
        style: &T,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        let s = scale(style.size()) as u32;
        Ok((text.chars().count() as u32 * 8 * s, 8 * s))
    }
    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &T,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let s = scale(style.size());
        let (w, h) = (text.chars().count() as i32 * 8 * s, 8 * s);
        let anchor = style.anchor();
        let x0 = pos.0
            - match anchor.h_pos {
                HPos::Left => 0,
                HPos::Center => w / 2,
                HPos::Right => w,
            };
        let y0 = pos.1
            - match anchor.v_pos {
                VPos::Top => 0,
                VPos::Center => h / 2,
                VPos::Bottom => h,
            };
        let colour = style.color();
        for (i, c) in text.chars().enumerate() {
            let glyph = font8x8::BASIC_FONTS.get(c).or_else(|| font8x8::BASIC_FONTS.get('?')).unwrap_or([0; 8]);
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..8 {
                    if bits & (1 << col) != 0 {
                        let x = x0 + (i as i32 * 8 + col) * s;
                        let y = y0 + row as i32 * s;
                        // The bitmap's rectangles leave out their bottom and right edges.
                        self.0.draw_rect((x, y), (x + s, y + s), &colour, true)?;
                    }
                }
            }
        }
        Ok(())
    }
}
