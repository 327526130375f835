//! The stores of the installation's other regions, as this process reaches them: opened on
//! first use and kept, for pushing definitions to hosting regions and moving answers home.

use std::collections::BTreeMap;
use std::sync::Arc;

use tokio::sync::Mutex;

use super::{StoreError, StoreSettings, Stores};
use crate::domain::region::RegionName;
use crate::storage::local::Durability;

/// The other regions' stores opened so far.
#[derive(Debug)]
pub(super) struct Elsewhere {
    settings: StoreSettings,
    opened: Mutex<BTreeMap<RegionName, Stores>>,
}

impl Elsewhere {
    pub(super) fn new(settings: &StoreSettings) -> Self {
        Self {
            settings: settings.clone(),
            opened: Mutex::new(BTreeMap::new()),
        }
    }
}

impl Stores {
    /// The stores of region `name`: these, when it is this process's region; else that
    /// region's storage, opened on first use. An unknown region is refused.
    pub async fn in_region(&self, name: &RegionName) -> Result<Stores, StoreError> {
        if self.residency.regions.is_here(name) {
            return Ok(self.clone());
        }
        let mut opened = self.residency.elsewhere.opened.lock().await;
        if let Some(stores) = opened.get(name) {
            return Ok(stores.clone());
        }
        let region = self
            .residency
            .regions
            .get(name)
            .ok_or_else(|| StoreError::Storage {
                doing: format!("reaching region {name}"),
                source: crate::storage::Error::InvalidArgument(format!(
                    "{name} is not a region of this installation"
                )),
            })?;
        let storage = region
            .backend
            .open(Durability::Full)
            .await
            .map_err(|source| StoreError::Storage {
                doing: format!("opening the storage of region {name}"),
                source,
            })?;
        let settings = StoreSettings {
            regions: Arc::new(self.residency.regions.seen_from(name)),
            ..self.residency.elsewhere.settings.clone()
        };
        let stores = Stores::open(storage, &settings).await?;
        opened.insert(name.clone(), stores.clone());
        Ok(stores)
    }
}
