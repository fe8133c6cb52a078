//! The embedded DejaVu Sans faces and the one text layout every output shares: glyphs, advances
//! and kerning as plotters' `ab_glyph` rasteriser places them, so the PNG, the SVG (text as glyph
//! outlines) and the PDF (text in an embedded font subset) agree to the font unit.

use std::sync::OnceLock;

use ab_glyph::{Font as _, FontRef, GlyphId, OutlineCurve};

/// One embedded face.
pub(super) struct Face {
    pub font: FontRef<'static>,
    /// The whole TrueType file, for subsetting into a PDF.
    pub data: &'static [u8],
    /// PostScript name, as PDF font dictionaries name it.
    pub postscript_name: &'static str,
    pub bold: bool,
}

/// DejaVu Sans has 2048 units per em.
pub(super) const UNITS_PER_EM: f64 = 2048.0;

/// The regular or the bold face. The embedded files are valid TrueType, checked by a test.
pub(super) fn face(bold: bool) -> &'static Face {
    static REGULAR: OnceLock<Face> = OnceLock::new();
    static BOLD: OnceLock<Face> = OnceLock::new();
    let (cell, data, postscript_name) = if bold {
        (&BOLD, dejavu::sans::bold(), "DejaVuSans-Bold")
    } else {
        (&REGULAR, dejavu::sans::regular(), "DejaVuSans")
    };
    cell.get_or_init(|| Face {
        font: FontRef::try_from_slice(data).expect("the embedded DejaVu Sans is valid TrueType"),
        data,
        postscript_name,
        bold,
    })
}

/// A glyph of a laid-out line of text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Placed {
    pub glyph: u16,
    /// The character it shows (one glyph per character: no ligatures).
    pub ch: char,
    /// Pen position from the start of the line, in font units.
    pub x: f64,
    /// Kerning applied before this glyph, in font units (already included in `x`).
    pub kern: f64,
}

impl Face {
    /// Glyphs of `text` on one line, and the line's advance width, in font units. The same
    /// arithmetic as plotters' `ab_glyph` backend: advance plus pair kerning.
    pub fn layout(&self, text: &str) -> (Vec<Placed>, f64) {
        let mut placed = Vec::with_capacity(text.len());
        let mut pen = 0.0;
        let mut previous: Option<GlyphId> = None;
        for ch in text.chars() {
            let id = self.font.glyph_id(ch);
            let kern = previous.map_or(0.0, |p| f64::from(self.font.kern_unscaled(p, id)));
            pen += kern;
            placed.push(Placed { glyph: id.0, ch, x: pen, kern });
            pen += f64::from(self.font.h_advance_unscaled(id));
            previous = Some(id);
        }
        (placed, pen)
    }

    pub fn advance(&self, glyph: u16) -> f64 {
        f64::from(self.font.h_advance_unscaled(GlyphId(glyph)))
    }

    /// The glyph's outline in font units (y up) as path commands: `M`, `L`, `Q`, `C` and `Z`.
    pub fn outline(&self, glyph: u16) -> Vec<PathCommand> {
        let Some(outline) = self.font.outline(GlyphId(glyph)) else {
            return Vec::new();
        };
        let mut commands = Vec::new();
        let mut last: Option<(f32, f32)> = None;
        for curve in &outline.curves {
            let (start, end) = match curve {
                OutlineCurve::Line(a, b) | OutlineCurve::Quad(a, _, b) | OutlineCurve::Cubic(a, _, _, b) => (*a, *b),
            };
            // A curve that does not continue the previous one starts a new contour.
            if last != Some((start.x, start.y)) {
                if last.is_some() {
                    commands.push(PathCommand::Close);
                }
                commands.push(PathCommand::Move(pt(start)));
            }
            commands.push(match curve {
                OutlineCurve::Line(_, b) => PathCommand::Line(pt(*b)),
                OutlineCurve::Quad(_, c, b) => PathCommand::Quad(pt(*c), pt(*b)),
                OutlineCurve::Cubic(_, c1, c2, b) => PathCommand::Cubic(pt(*c1), pt(*c2), pt(*b)),
            });
            last = Some((end.x, end.y));
        }
        if last.is_some() {
            commands.push(PathCommand::Close);
        }
        commands
    }

    /// Ascent, descent (negative), cap height and bounding box in font units, for PDF font
    /// descriptors.
    pub fn metrics(&self) -> FaceMetrics {
        let face = ttf_parser::Face::parse(self.data, 0).expect("the embedded DejaVu Sans is valid TrueType");
        let bbox = face.global_bounding_box();
        FaceMetrics {
            ascent: f64::from(face.ascender()),
            descent: f64::from(face.descender()),
            cap_height: f64::from(face.capital_height().unwrap_or(face.ascender())),
            bbox: [bbox.x_min, bbox.y_min, bbox.x_max, bbox.y_max].map(f64::from),
        }
    }
}

pub(super) struct FaceMetrics {
    pub ascent: f64,
    pub descent: f64,
    pub cap_height: f64,
    pub bbox: [f64; 4],
}

fn pt(p: ab_glyph::Point) -> (f64, f64) {
    (f64::from(p.x), f64::from(p.y))
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum PathCommand {
    Move((f64, f64)),
    Line((f64, f64)),
    Quad((f64, f64), (f64, f64)),
    Cubic((f64, f64), (f64, f64), (f64, f64)),
    Close,
}
