//! An in-memory record for UDF tests: bins, flags for what the UDF called.

use engine::udf::RecordMut;
use engine::{Particle, RecordView};

#[derive(Default)]
pub struct Rec {
    pub bins: Vec<(String, Particle)>,
    pub exists: bool,
    pub created: bool,
    pub updated: bool,
    pub removed: bool,
    pub ttl: Option<i64>,
}

impl RecordView for Rec {
    fn bin(&self, name: &str) -> Option<&Particle> {
        self.bins.iter().find(|b| b.0 == name).map(|b| &b.1)
    }
    fn bin_names(&self) -> Vec<&str> {
        self.bins.iter().map(|b| b.0.as_str()).collect()
    }
    fn exists(&self) -> bool {
        self.exists
    }
    fn set_name(&self) -> &str {
        "s"
    }
    fn user_key(&self) -> Option<&Particle> {
        None
    }
    fn digest(&self) -> &[u8; 20] {
        &[1; 20]
    }
    fn generation(&self) -> u32 {
        4
    }
    fn void_time_ns(&self) -> u64 {
        0
    }
    fn last_update_ns(&self) -> u64 {
        0
    }
    fn size_bytes(&self) -> u64 {
        0
    }
}

impl RecordMut for Rec {
    fn set_bin(&mut self, name: &str, value: Particle) -> Result<(), u8> {
        self.bins.retain(|b| b.0 != name);
        self.bins.push((name.to_string(), value));
        Ok(())
    }
    fn remove_bin(&mut self, name: &str) -> Result<(), u8> {
        self.bins.retain(|b| b.0 != name);
        Ok(())
    }
    fn create(&mut self) -> Result<(), u8> {
        self.exists = true;
        self.created = true;
        Ok(())
    }
    fn update(&mut self) -> Result<(), u8> {
        self.exists = true;
        self.updated = true;
        Ok(())
    }
    fn remove(&mut self) -> Result<(), u8> {
        self.exists = false;
        self.removed = true;
        Ok(())
    }
    fn set_ttl(&mut self, ttl: i64) {
        self.ttl = Some(ttl);
    }
}
