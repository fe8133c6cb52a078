//! blox's integration tests as one test binary (one link of the library instead of one per
//! file): each module is one area, run as a user runs blox where it can (the binary, public data
//! through `blox data`). `cargo test --release --test it MODULE::` runs one area. Live mode's
//! tests are the `live` binary: they compare wall-clock runs with simulations and need the
//! machine to themselves.

mod adversarial_inputs;
mod blox_paper;
mod cli;
mod cli_trace;
mod clusters;
#[path = "../common/mod.rs"]
mod common;
mod compare;
mod custom_policy;
mod data_fetch;
mod docs_examples;
mod elasticflow_ef;
mod elasticflow_gandiva;
mod elasticflow_generator;
mod elasticflow_paper;
mod elasticflow_themis;
mod external_policy;
mod fgd_openb;
mod figures;
mod gavel_generator;
mod gavel_inputs;
mod gavel_original;
mod gavel_paper;
mod interop;
mod muri_original;
mod muri_paper;
mod placements;
mod pollux_afs;
mod pollux_cli;
mod pollux_generator;
mod pollux_original;
mod pollux_paper;
mod pollux_policy;
mod registry_files;
mod report;
mod report_browser;
mod results_trust;
mod shards;
mod synergy_original;
mod synergy_paper;
mod tiresias_gittins;
mod trace_readers_cluster;
mod trace_readers_ml;
mod validate;
mod yarn_placement;
