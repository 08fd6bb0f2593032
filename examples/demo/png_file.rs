//! Writes an [`Image`](super::render::Image) as an 8-bit RGB PNG (with the `png` crate).

use std::path::Path;

use super::render::Image;

/// Writes `image` to `path`; the error names the file.
pub fn write_png(path: &Path, image: &Image) -> Result<(), String> {
    let fail =
        |e: &dyn std::fmt::Display| format!("{}: cannot write the picture: {e}", path.display());
    let file = std::fs::File::create(path).map_err(|e| fail(&e))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), image.width, image.height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::High);
    let mut writer = encoder.write_header().map_err(|e| fail(&e))?;
    writer
        .write_image_data(image.pixels.as_flattened())
        .map_err(|e| fail(&e))?;
    writer.finish().map_err(|e| fail(&e))
}
