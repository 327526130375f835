//! How a tenant's public pages look: an accent colour (only one white text stays readable on)
//! and a logo (PNG, JPEG or WebP, checked from its own bytes, never from its name).

use serde::{Deserialize, Serialize};

/// Most bytes of a logo.
pub const MAX_LOGO_BYTES: usize = 512 * 1024;
/// Most pixels of a logo across and down.
pub const MAX_LOGO_SIDE: usize = 2000;
/// Least contrast of white text on the accent colour (WCAG 2 AA for normal text).
pub const MIN_CONTRAST: f64 = 4.5;

/// How a tenant's public pages look.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Branding {
    /// The accent colour, `#rrggbb` (checked for contrast when set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accent: Option<String>,
    /// The stored logo's entity tag, if it has one: links carry it, so a new logo is a new
    /// address and caches never show the old one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logo: Option<String>,
}

impl Branding {
    /// What the tenant's style sheet link carries to change with its colour (none without
    /// one: its pages then need no style sheet of their own).
    pub fn style_version(&self) -> Option<&str> {
        self.accent.as_deref().map(|a| a.trim_start_matches('#'))
    }

    /// The tenant's style sheet: the accent colour over the site's.
    pub fn style_sheet(&self) -> String {
        match &self.accent {
            Some(accent) => format!(":root {{ --accent: {accent}; --accent-ink: #ffffff; }}\n"),
            None => String::new(),
        }
    }
}

/// Why a colour or a logo is refused.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum BrandingError {
    /// Not `#rrggbb`.
    #[error("a colour is written #rrggbb, for example #1a5fb4")]
    NotAColour,
    /// White text on it would be hard to read.
    #[error(
        "white text on {colour} has a contrast of {contrast:.2}:1; pick a darker colour (4.5:1 \
         or more)"
    )]
    LowContrast {
        /// The colour as given.
        colour: String,
        /// Its contrast with white.
        contrast: f64,
    },
    /// Too many bytes.
    #[error("a logo is at most 512 KB; this file is larger")]
    TooLarge,
    /// Not a PNG, JPEG or WebP image (an SVG, which can carry scripts, included).
    #[error("a logo is a PNG, JPEG or WebP image; this file is not one")]
    NotAnImage,
    /// Too many pixels.
    #[error("a logo is at most 2000 × 2000 pixels; this one is {0} × {1}")]
    TooBig(usize, usize),
}

/// The `#rrggbb` colour, lowercase, if white text on it has at least 4.5:1 contrast.
pub fn accent(text: &str) -> Result<String, BrandingError> {
    let hex = text
        .trim()
        .strip_prefix('#')
        .filter(|h| h.len() == 6 && h.bytes().all(|b| b.is_ascii_hexdigit()))
        .ok_or(BrandingError::NotAColour)?
        .to_ascii_lowercase();
    let channel = |at: usize| {
        let value = u8::from_str_radix(&hex[at..at + 2], 16).unwrap_or(0);
        linear(f64::from(value) / 255.0)
    };
    let luminance = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
    let contrast = 1.05 / (luminance + 0.05);
    if contrast < MIN_CONTRAST {
        return Err(BrandingError::LowContrast {
            colour: format!("#{hex}"),
            contrast,
        });
    }
    Ok(format!("#{hex}"))
}

/// An sRGB channel (0 to 1) in linear light, as WCAG's relative luminance defines it.
fn linear(c: f64) -> f64 {
    if c <= 0.040_45 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// The media type of an acceptable logo.
pub fn logo_type(bytes: &[u8]) -> Result<&'static str, BrandingError> {
    if bytes.len() > MAX_LOGO_BYTES {
        return Err(BrandingError::TooLarge);
    }
    let media = match imagesize::image_type(bytes) {
        Ok(imagesize::ImageType::Png) => "image/png",
        Ok(imagesize::ImageType::Jpeg) => "image/jpeg",
        Ok(imagesize::ImageType::Webp) => "image/webp",
        _ => return Err(BrandingError::NotAnImage),
    };
    let size = imagesize::blob_size(bytes).map_err(|_| BrandingError::NotAnImage)?;
    if size.width == 0 || size.height == 0 {
        return Err(BrandingError::NotAnImage);
    }
    if size.width > MAX_LOGO_SIDE || size.height > MAX_LOGO_SIDE {
        return Err(BrandingError::TooBig(size.width, size.height));
    }
    Ok(media)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header of a PNG of `width` × `height` pixels (all a size check reads).
    fn png_header(width: u32, height: u32) -> Vec<u8> {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend(width.to_be_bytes());
        png.extend(height.to_be_bytes());
        png.extend([8, 6, 0, 0, 0, 0, 0, 0, 0]);
        png
    }

    #[test]
    fn dark_accents_are_kept_and_light_ones_refused_with_their_contrast() {
        assert_eq!(accent(" #1A5FB4 ").as_deref(), Ok("#1a5fb4"));
        assert_eq!(accent("#000000").as_deref(), Ok("#000000"));
        // #767676 is the lightest grey with 4.5:1 on white; #777777 just misses it.
        assert!(accent("#767676").is_ok());
        match accent("#777777") {
            Err(BrandingError::LowContrast { contrast, .. }) => {
                assert!(contrast > 4.4 && contrast < 4.5, "{contrast}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            accent("#ffff00"),
            Err(BrandingError::LowContrast { .. })
        ));
        for bad in ["", "red", "#fff", "#12345g", "123456", "#1234567"] {
            assert_eq!(accent(bad), Err(BrandingError::NotAColour), "case {bad:?}");
        }
    }

    proptest::proptest! {
        /// Any six hex digits are a colour, in either case: kept exactly when white text on it
        /// reaches 4.5:1, refused with its contrast otherwise; darker is never refused where
        /// lighter is kept.
        #[test]
        fn every_colour_is_judged_by_its_contrast_alone(red: u8, green: u8, blue: u8) {
            let hex = format!("#{red:02x}{green:02x}{blue:02x}");
            let kept = accent(&hex);
            proptest::prop_assert_eq!(&accent(&hex.to_uppercase()), &kept);
            match &kept {
                Ok(colour) => proptest::prop_assert_eq!(colour, &hex),
                Err(BrandingError::LowContrast { contrast, .. }) => {
                    proptest::prop_assert!(*contrast < MIN_CONTRAST)
                }
                Err(other) => proptest::prop_assert!(false, "{hex}: {other:?}"),
            }
            if kept.is_ok() {
                let darker = format!("#{:02x}{:02x}{:02x}", red / 2, green / 2, blue / 2);
                proptest::prop_assert!(accent(&darker).is_ok(), "{darker}");
            }
        }
    }

    #[test]
    fn logos_are_judged_by_their_bytes_type_and_size() {
        assert_eq!(logo_type(&png_header(400, 120)), Ok("image/png"));
        assert_eq!(
            logo_type(&png_header(2001, 10)),
            Err(BrandingError::TooBig(2001, 10))
        );
        let svg = br#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#;
        assert_eq!(logo_type(svg), Err(BrandingError::NotAnImage));
        assert_eq!(logo_type(b"GIF89a...."), Err(BrandingError::NotAnImage));
        let mut huge = png_header(10, 10);
        huge.resize(MAX_LOGO_BYTES + 1, 0);
        assert_eq!(logo_type(&huge), Err(BrandingError::TooLarge));
    }
}
