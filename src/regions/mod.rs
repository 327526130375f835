//! The installation's regions: each one's storage and public address, and the region this
//! process runs in. With no regions file there is one implicit region and nothing here
//! changes what a process does.

mod file;

pub use file::{MAX_FILE_BYTES, MAX_REGIONS, REFERENCE_BLOCKS, RegionsFileError, load, parse};

use std::collections::BTreeMap;

use crate::domain::definition::checked::Installation;
use crate::domain::region::RegionName;
use crate::storage::Backend;

/// How many reference numbers each block holds: a region's references are its block times
/// this plus its own counter, so two regions never hand out the same one, and references stay
/// below 2^53 (exact in every JSON reader).
pub const REFERENCE_BLOCK_SIZE: u64 = 10_000_000_000;

/// One region of the regions file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// Its name (`eu`).
    pub name: RegionName,
    /// How it is shown to people (`Europe (Frankfurt)`); the name when the file gives none.
    pub label: String,
    /// Where its state lives.
    pub backend: Backend,
    /// The address respondents and members reach it at, without a trailing slash.
    pub public_url: String,
    /// The block its references are drawn from (1 to `REFERENCE_BLOCKS`).
    pub reference_block: u16,
}

/// The regions an installation has, and the one this process runs in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Regions {
    here: Option<RegionName>,
    all: BTreeMap<RegionName, Region>,
}

impl Regions {
    /// No regions file: one implicit region.
    pub fn implicit() -> Self {
        Self::default()
    }

    /// Whether the installation names its regions.
    pub fn named(&self) -> bool {
        self.here.is_some()
    }

    /// The region this process runs in (`None` without a regions file).
    pub fn here(&self) -> Option<&RegionName> {
        self.here.as_ref()
    }

    /// This process's region entry.
    pub fn here_region(&self) -> Option<&Region> {
        self.here.as_ref().and_then(|here| self.all.get(here))
    }

    /// A region by name.
    pub fn get(&self, name: &RegionName) -> Option<&Region> {
        self.all.get(name)
    }

    /// Every region, by name.
    pub fn all(&self) -> impl Iterator<Item = &Region> {
        self.all.values()
    }

    /// Whether `name` is this process's region (every name is, without a regions file: there
    /// is only one region then).
    pub fn is_here(&self, name: &RegionName) -> bool {
        self.here.as_ref().is_none_or(|here| here == name)
    }

    /// These regions as a process of region `name` sees them.
    pub fn seen_from(&self, name: &RegionName) -> Self {
        Self {
            here: Some(name.clone()),
            all: self.all.clone(),
        }
    }

    /// The first reference number this process's region may hand out (0 without a regions
    /// file, as before regions existed).
    pub fn reference_base(&self) -> u64 {
        self.here_region().map_or(0, |region| {
            u64::from(region.reference_block) * REFERENCE_BLOCK_SIZE
        })
    }

    /// These regions as the definition checker sees them.
    pub fn installation(&self) -> Installation {
        Installation {
            regions: self.all.keys().cloned().collect(),
            here: self.here.clone(),
        }
    }

    /// The storage this process uses: its region's, or `fallback` without a regions file.
    pub fn backend_or(&self, fallback: Backend) -> Backend {
        self.here_region()
            .map_or(fallback, |region| region.backend.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_file_every_region_is_here_and_references_start_at_zero() {
        let implicit = Regions::implicit();
        assert!(!implicit.named());
        assert!(implicit.is_here(&RegionName::parse("eu").expect("a name")));
        assert_eq!(implicit.reference_base(), 0);
    }

    #[test]
    fn reference_blocks_keep_references_exact_in_json() {
        let top = u64::from(REFERENCE_BLOCKS + 1) * REFERENCE_BLOCK_SIZE;
        assert!(top < 1 << 53);
    }
}
