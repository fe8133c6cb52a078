//! A job's best-case CPU and memory demand and its speedup there, from its model's profile and
//! the size of one server.
//!
//! Rule (`docs/synergy-semantics.md` §1.3; Synergy `Workload.add_synergy_profile`, workload.py at
//! 1bb2bed): the demand is the profile's ideal CPUs and memory per GPU times the job's GPUs. A
//! component above one server's capacity is capped at it, and the speedup then follows a straight
//! line in CPUs between the GPU-proportional share (speedup 1) and the ideal (the profile's
//! speedup), at the capped CPUs: a job capped in memory alone keeps its speedup (quirk 12). A job
//! wider than a server asks each resource in proportion to its GPUs and has speedup 1.

use crate::profiles::synergy::ModelProfile;

/// Storage bandwidth (MB/s) a job asks per GPU and a server has, as in every shipped Synergy
/// config. A job asks exactly the GPU-proportional share of it, so storage never decides a
/// placement and blox does not place it; it matters only here, where a job wider than a server
/// exceeds it (§1.2, quirk 11).
const STORAGE_PER_GPU: f64 = 62.5;
const STORAGE_PER_SERVER: f64 = 500.0;

/// One server's GPUs, CPUs and memory (GB): Synergy's `per_server_size`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerSize {
    pub gpus: f64,
    pub cpus: f64,
    pub memory_gb: f64,
}

/// What a job asks for at best, and how much faster it runs there than at the GPU-proportional
/// share.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Demand {
    pub cpus: f64,
    pub memory_gb: f64,
    pub speedup: f64,
}

/// The demand of a job of `gpus` GPUs running `profile` on servers of `server`'s size; an error
/// where the original aborts (a capped demand whose ideal CPUs equal the proportional share).
pub fn demand(profile: &ModelProfile, gpus: u32, server: &ServerSize) -> Result<Demand, String> {
    let g = f64::from(gpus);
    let mut cpus = g * profile.ideal_cpus_per_gpu;
    let mut memory_gb = g * profile.ideal_mem_gb_per_gpu;
    let mut storage = g * STORAGE_PER_GPU;
    let mut speedup = profile.speedup;
    let mut adjust = false;
    for (amount, capacity) in
        [(&mut cpus, server.cpus), (&mut memory_gb, server.memory_gb), (&mut storage, STORAGE_PER_SERVER)]
    {
        if *amount > capacity {
            *amount = capacity;
            adjust = true;
            if g > server.gpus {
                *amount = g * (capacity / server.gpus);
                speedup = 1.0;
                adjust = false;
            }
        }
    }
    if adjust {
        let ideal_cpus = g * profile.ideal_cpus_per_gpu;
        let fair_cpus = g * (server.cpus / server.gpus);
        if ideal_cpus == fair_cpus {
            return Err(format!(
                "model {}: its memory on {gpus} GPUs exceeds a server while its CPUs are the proportional share, \
                 which Synergy's speedup line cannot handle",
                profile.name
            ));
        }
        let slope = (speedup - 1.0) / (ideal_cpus - fair_cpus);
        speedup = 1.0 + slope * (cpus - fair_cpus);
    }
    Ok(Demand { cpus, memory_gb, speedup })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profiles::synergy::{CpusPerGpu, profile};

    /// The table of §1.3, computed by calling the original (default cluster, ratio 3).
    #[test]
    fn demands_of_the_default_cluster() {
        let server = ServerSize { gpus: 8.0, cpus: 24.0, memory_gb: 500.0 };
        let of = |class: usize, gpus: u32| {
            let d = demand(&profile(class, CpusPerGpu::Three), gpus, &server).unwrap();
            (d.cpus, d.memory_gb, d.speedup)
        };
        assert_eq!(of(0, 1), (12.0, 125.0, 2.94));
        assert_eq!(of(0, 4), (24.0, 500.0, 1.6466666666666667));
        assert_eq!(of(0, 8), (24.0, 500.0, 1.0));
        assert_eq!(of(4, 4), (24.0, 500.0, 1.6300000000000001));
        assert_eq!(of(1, 4), (24.0, 250.0, 1.7));
        assert_eq!(of(2, 8), (24.0, 500.0, 1.0));
        assert_eq!(of(8, 4), (24.0, 500.0, 2.5), "capped in memory only: full speedup");
        assert_eq!(of(5, 8), (8.0, 160.0, 1.0));
        assert_eq!(of(0, 16), (48.0, 1000.0, 1.0), "wider than a server");
        assert_eq!(of(5, 16), (16.0, 320.0, 1.0));
    }
}
