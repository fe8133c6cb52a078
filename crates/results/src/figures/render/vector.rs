//! Vector output: the canvas records its operations once, in figure pixels, and they are written
//! as a self-contained SVG (text as outlines of the embedded font's glyphs, so no viewer
//! substitutes a font; each text keeps its words in an `aria-label`) and as a PDF whose text is
//! real text in an embedded, subsetted TrueType font (`/FontFile2`), as publishers require.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write as _;

use pdf_writer::types::{CidFontType, FontFlags, LineCapStyle, LineJoinStyle, SystemInfo, UnicodeCmap};
use pdf_writer::{Content, Filter, Finish, Name, Pdf, Rect as PdfRect, Ref, Str, TextStr};
use plotters::style::RGBColor;
use subsetter::GlyphRemapper;

use super::canvas::{Align, Direction};
use super::fonts::{self, Face, PathCommand, Placed, UNITS_PER_EM};
use super::geometry::{Point, Rect};

/// One drawing operation in figure pixels (y down).
#[derive(Clone, Debug)]
pub(super) enum Op {
    Rect { rect: Rect, color: RGBColor },
    Polygon { points: Vec<Point>, color: RGBColor },
    Disc { center: Point, radius: f64, color: RGBColor },
    Stroke { points: Vec<Point>, width: f64, color: RGBColor },
    Text { text: String, em: f64, bold: bool, color: RGBColor, anchor: Point, align: Align, direction: Direction },
}

/// Everything drawn on a figure, in order.
#[derive(Clone, Debug, Default)]
pub(super) struct Recording {
    pub ops: Vec<Op>,
}

/// A text operation laid out: where each glyph's origin goes, and which way the text runs.
struct LaidOut {
    face: &'static Face,
    glyphs: Vec<Placed>,
    /// Figure pixels per font unit.
    scale: f64,
    /// Baseline start of the text.
    origin: Point,
    direction: Direction,
}

impl LaidOut {
    fn new(text: &str, em: f64, bold: bool, anchor: Point, align: Align, direction: Direction) -> LaidOut {
        let face = fonts::face(bold);
        let (glyphs, advance) = face.layout(text);
        let scale = em / UNITS_PER_EM;
        let shift = match align {
            Align::Start => 0.0,
            Align::Middle => -advance * scale / 2.0,
            Align::End => -advance * scale,
        };
        let origin = match direction {
            Direction::Horizontal => (anchor.0 + shift, anchor.1),
            Direction::Upward => (anchor.0, anchor.1 - shift),
        };
        LaidOut { face, glyphs, scale, origin, direction }
    }

    /// The origin of a glyph at pen position `x` (font units).
    fn at(&self, x: f64) -> Point {
        match self.direction {
            Direction::Horizontal => (self.origin.0 + x * self.scale, self.origin.1),
            Direction::Upward => (self.origin.0, self.origin.1 - x * self.scale),
        }
    }
}

/// A number with at most `decimals` decimals and no trailing zeros ("12.5", "3", "-0.25").
fn num(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    let text = if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.') } else { &text };
    if text == "-0" { "0".to_string() } else { text.to_string() }
}

fn px(value: f64) -> String {
    num(value, 2)
}

fn hex(color: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", color.0, color.1, color.2)
}

fn glyph_id(prefix: &str, face: &Face, glyph: u16) -> String {
    format!("{prefix}{}{glyph}", if face.bold { "b" } else { "r" })
}

/// Path data in font units (y up), integers as the font has them.
fn glyph_path(face: &Face, glyph: u16) -> String {
    let mut d = String::new();
    let p = |(x, y): (f64, f64)| format!("{} {}", num(x, 1), num(y, 1));
    for command in face.outline(glyph) {
        let _ = match command {
            PathCommand::Move(a) => write!(d, "M{}", p(a)),
            PathCommand::Line(a) => write!(d, "L{}", p(a)),
            PathCommand::Quad(c, a) => write!(d, "Q{} {}", p(c), p(a)),
            PathCommand::Cubic(c1, c2, a) => write!(d, "C{} {} {}", p(c1), p(c2), p(a)),
            PathCommand::Close => write!(d, "Z"),
        };
    }
    d
}

impl Recording {
    /// A self-contained SVG of `size` pixels (the recording's units). Its element ids (the
    /// glyphs texts refer to) start with `id_prefix`, so that several drawings inlined in one
    /// HTML page keep their ids apart. `alternative`, when given, is the drawing's text
    /// alternative for a page that inlines it (an image role, its label and a `<title>`); the
    /// figure files carry none, so their bytes stay what they were.
    pub fn to_svg(&self, (width, height): (u32, u32), id_prefix: &str, alternative: Option<&str>) -> String {
        let mut out = String::new();
        let _ = write!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="{width}" height="{height}" viewBox="0 0 {width} {height}""#
        );
        match alternative {
            Some(text) => {
                let text = crate::text::escape_markup(text);
                let _ = writeln!(out, r#" role="img" aria-label="{text}">"#);
                let _ = writeln!(out, "<title>{text}</title>");
            }
            None => out.push_str(">\n"),
        }
        // Every glyph once, in font units; texts place them with `use`.
        let mut glyphs: BTreeSet<(bool, u16)> = BTreeSet::new();
        for op in &self.ops {
            if let Op::Text { text, bold, .. } = op {
                glyphs.extend(fonts::face(*bold).layout(text).0.iter().map(|g| (*bold, g.glyph)));
            }
        }
        let mut drawn_glyphs = BTreeSet::new();
        if !glyphs.is_empty() {
            out.push_str("<defs>\n");
            for (bold, glyph) in glyphs {
                let face = fonts::face(bold);
                let d = glyph_path(face, glyph);
                if !d.is_empty() {
                    let _ = writeln!(out, r#"<path id="{}" d="{d}"/>"#, glyph_id(id_prefix, face, glyph));
                    drawn_glyphs.insert((bold, glyph));
                }
            }
            out.push_str("</defs>\n");
        }
        let points = |points: &[Point]| {
            points.iter().map(|(x, y)| format!("{},{}", px(*x), px(*y))).collect::<Vec<_>>().join(" ")
        };
        for op in &self.ops {
            let _ = match op {
                Op::Rect { rect, color } => writeln!(
                    out,
                    r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>"#,
                    px(rect.left),
                    px(rect.top),
                    px(rect.width()),
                    px(rect.height()),
                    hex(*color)
                ),
                Op::Polygon { points: p, color } => {
                    writeln!(out, r#"<polygon points="{}" fill="{}"/>"#, points(p), hex(*color))
                }
                Op::Disc { center, radius, color } => writeln!(
                    out,
                    r#"<circle cx="{}" cy="{}" r="{}" fill="{}"/>"#,
                    px(center.0),
                    px(center.1),
                    px(*radius),
                    hex(*color)
                ),
                Op::Stroke { points: p, width, color } => writeln!(
                    out,
                    r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="{}" stroke-linejoin="round"/>"#,
                    points(p),
                    hex(*color),
                    px(*width)
                ),
                Op::Text { text, em, bold, color, anchor, align, direction } => {
                    let laid = LaidOut::new(text, *em, *bold, *anchor, *align, *direction);
                    let s = num(laid.scale, 6);
                    let _ =
                        write!(out, r#"<g aria-label="{}" fill="{}">"#, crate::text::escape_markup(text), hex(*color));
                    for glyph in laid.glyphs.iter().filter(|g| drawn_glyphs.contains(&(*bold, g.glyph))) {
                        let (x, y) = laid.at(glyph.x);
                        let matrix = match direction {
                            Direction::Horizontal => format!("{s} 0 0 -{s} {} {}", px(x), px(y)),
                            Direction::Upward => format!("0 -{s} -{s} 0 {} {}", px(x), px(y)),
                        };
                        let _ = write!(
                            out,
                            r##"<use xlink:href="#{}" transform="matrix({matrix})"/>"##,
                            glyph_id(id_prefix, laid.face, glyph.glyph)
                        );
                    }
                    writeln!(out, "</g>")
                }
            };
        }
        out.push_str("</svg>\n");
        out
    }

    /// A one-page PDF whose page measures `page_pt` points; recording units are scaled by
    /// `points_per_unit`. Fonts are embedded as subsets (CIDFontType2, Identity-H) with a
    /// ToUnicode map, so text stays selectable and searchable.
    pub fn to_pdf(&self, page_pt: (f64, f64), points_per_unit: f64) -> Result<Vec<u8>, String> {
        let k = points_per_unit;
        let height = page_pt.1;
        let at = |(x, y): Point| ((x * k) as f32, (height - y * k) as f32);

        // Glyphs used per face, then one subset per face.
        let mut used: BTreeMap<bool, BTreeMap<u16, char>> = BTreeMap::new();
        for op in &self.ops {
            if let Op::Text { text, bold, .. } = op {
                let glyphs = used.entry(*bold).or_default();
                for g in fonts::face(*bold).layout(text).0 {
                    glyphs.entry(g.glyph).or_insert(g.ch);
                }
            }
        }
        let fonts: Vec<(bool, GlyphRemapper, &BTreeMap<u16, char>)> = used
            .iter()
            .map(|(bold, glyphs)| {
                let ids: Vec<u16> = glyphs.keys().copied().collect();
                (*bold, GlyphRemapper::new_from_glyphs_sorted(&ids), glyphs)
            })
            .collect();
        let font_name = |bold: bool| if bold { Name(b"F1") } else { Name(b"F0") };

        let mut content = Content::new();
        content.set_line_cap(LineCapStyle::ButtCap);
        content.set_line_join(LineJoinStyle::RoundJoin);
        let rgb = |c: RGBColor| (f32::from(c.0) / 255.0, f32::from(c.1) / 255.0, f32::from(c.2) / 255.0);
        for op in &self.ops {
            match op {
                Op::Rect { rect, color } => {
                    let (r, g, b) = rgb(*color);
                    let (x, y) = at((rect.left, rect.bottom));
                    content.set_fill_rgb(r, g, b);
                    content.rect(x, y, (rect.width() * k) as f32, (rect.height() * k) as f32);
                    content.fill_nonzero();
                }
                Op::Polygon { points, color } => {
                    if points.len() < 3 {
                        continue;
                    }
                    let (r, g, b) = rgb(*color);
                    content.set_fill_rgb(r, g, b);
                    let (x, y) = at(points[0]);
                    content.move_to(x, y);
                    for point in &points[1..] {
                        let (x, y) = at(*point);
                        content.line_to(x, y);
                    }
                    content.close_path();
                    content.fill_nonzero();
                }
                Op::Disc { center, radius, color } => {
                    let (r, g, b) = rgb(*color);
                    content.set_fill_rgb(r, g, b);
                    circle(&mut content, at(*center), (*radius * k) as f32);
                    content.fill_nonzero();
                }
                Op::Stroke { points, width, color } => {
                    let (r, g, b) = rgb(*color);
                    content.set_stroke_rgb(r, g, b);
                    content.set_line_width((*width * k) as f32);
                    let (x, y) = at(points[0]);
                    content.move_to(x, y);
                    for point in &points[1..] {
                        let (x, y) = at(*point);
                        content.line_to(x, y);
                    }
                    content.stroke();
                }
                Op::Text { text, em, bold, color, anchor, align, direction } => {
                    let laid = LaidOut::new(text, *em, *bold, *anchor, *align, *direction);
                    let Some((_, remapper, _)) = fonts.iter().find(|f| f.0 == *bold) else { continue };
                    let (r, g, b) = rgb(*color);
                    let (x, y) = at(laid.origin);
                    let matrix = match direction {
                        Direction::Horizontal => [1.0, 0.0, 0.0, 1.0, x, y],
                        Direction::Upward => [0.0, 1.0, -1.0, 0.0, x, y],
                    };
                    content.begin_text();
                    content.set_fill_rgb(r, g, b);
                    content.set_font(font_name(*bold), (*em * k) as f32);
                    content.set_text_matrix(matrix);
                    {
                        let mut shown = content.show_positioned();
                        let mut items = shown.items();
                        for glyph in &laid.glyphs {
                            if glyph.kern != 0.0 {
                                items.adjust((-glyph.kern * 1000.0 / UNITS_PER_EM) as f32);
                            }
                            let cid = remapper.get(glyph.glyph).unwrap_or(0);
                            items.show(Str(&cid.to_be_bytes()));
                        }
                    }
                    content.end_text();
                }
            }
        }
        let content = content.finish();

        let mut next = 1;
        let mut id = || {
            let r = Ref::new(next);
            next += 1;
            r
        };
        let (catalog_id, pages_id, page_id, content_id, info_id) = (id(), id(), id(), id(), id());
        let mut pdf = Pdf::new();
        pdf.catalog(catalog_id).pages(pages_id);
        pdf.pages(pages_id).kids([page_id]).count(1);
        pdf.document_info(info_id).producer(TextStr(concat!("blox ", env!("CARGO_PKG_VERSION"))));
        let font_ids: Vec<(bool, Ref)> = fonts.iter().map(|(bold, _, _)| (*bold, id())).collect();
        {
            let mut page = pdf.page(page_id);
            page.media_box(PdfRect::new(0.0, 0.0, page_pt.0 as f32, page_pt.1 as f32));
            page.parent(pages_id);
            page.contents(content_id);
            let mut resources = page.resources();
            let mut font_dict = resources.fonts();
            for (bold, font_id) in &font_ids {
                font_dict.pair(font_name(*bold), *font_id);
            }
        }
        pdf.stream(content_id, &deflate(&content)).filter(Filter::FlateDecode);

        for ((bold, remapper, chars), (_, type0_id)) in fonts.iter().zip(&font_ids) {
            let face = fonts::face(*bold);
            let (cid_id, descriptor_id, file_id, cmap_id) = (id(), id(), id(), id());
            let subset = subsetter::subset(face.data, 0, remapper)
                .map_err(|e| format!("cannot subset the embedded font {}: {e}", face.postscript_name))?;
            // A subset's name is tagged with six capitals derived from its glyphs (PDF 9.6.4).
            let tag: String = {
                let mut h: u64 = 0xcbf2_9ce4_8422_2325;
                for g in remapper.remapped_gids() {
                    h = (h ^ u64::from(g)).wrapping_mul(0x0100_0000_01b3);
                }
                (0..6).map(|i| char::from(b'A' + ((h >> (i * 8)) % 26) as u8)).collect()
            };
            let base = format!("{tag}+{}", face.postscript_name);
            let system = SystemInfo { registry: Str(b"Adobe"), ordering: Str(b"Identity"), supplement: 0 };

            pdf.type0_font(*type0_id)
                .base_font(Name(base.as_bytes()))
                .encoding_predefined(Name(b"Identity-H"))
                .descendant_font(cid_id)
                .to_unicode(cmap_id);
            let widths: Vec<f32> =
                remapper.remapped_gids().map(|g| (face.advance(g) * 1000.0 / UNITS_PER_EM) as f32).collect();
            let mut cid = pdf.cid_font(cid_id);
            cid.subtype(CidFontType::Type2)
                .base_font(Name(base.as_bytes()))
                .system_info(system)
                .font_descriptor(descriptor_id)
                .cid_to_gid_map_predefined(Name(b"Identity"));
            cid.widths().consecutive(0, widths);
            cid.finish();

            let metrics = face.metrics();
            let unit = |v: f64| (v * 1000.0 / UNITS_PER_EM) as f32;
            let [x0, y0, x1, y1] = metrics.bbox.map(unit);
            pdf.font_descriptor(descriptor_id)
                .name(Name(base.as_bytes()))
                .flags(FontFlags::NON_SYMBOLIC)
                .bbox(PdfRect::new(x0, y0, x1, y1))
                .italic_angle(0.0)
                .ascent(unit(metrics.ascent))
                .descent(unit(metrics.descent))
                .cap_height(unit(metrics.cap_height))
                .stem_v(if *bold { 140.0 } else { 80.0 })
                .font_file2(file_id);
            pdf.stream(file_id, &deflate(&subset))
                .filter(Filter::FlateDecode)
                .pair(Name(b"Length1"), subset.len() as i32);

            let mut cmap = UnicodeCmap::new(Name(b"Custom"), system);
            for (glyph, ch) in chars.iter() {
                if let Some(cid) = remapper.get(*glyph) {
                    cmap.pair(cid, *ch);
                }
            }
            pdf.cmap(cmap_id, &cmap.finish());
        }
        Ok(pdf.finish())
    }
}

/// A full circle of four cubic Béziers.
fn circle(content: &mut Content, (cx, cy): (f32, f32), r: f32) {
    const KAPPA: f32 = 0.552_284_8;
    let c = r * KAPPA;
    content.move_to(cx + r, cy);
    content.cubic_to(cx + r, cy + c, cx + c, cy + r, cx, cy + r);
    content.cubic_to(cx - c, cy + r, cx - r, cy + c, cx - r, cy);
    content.cubic_to(cx - r, cy - c, cx - c, cy - r, cx, cy - r);
    content.cubic_to(cx + c, cy - r, cx + r, cy - c, cx + r, cy);
    content.close_path();
}

fn deflate(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    // Writing into a Vec cannot fail.
    let _ = encoder.write_all(bytes);
    encoder.finish().unwrap_or_default()
}
