//! `accept-all`: every arrival joins the cluster immediately.
//! Source: Blox `admission_control/accept_all.py` (config name `AcceptAll`).

use crate::core::{Admission, AdmissionContext, JobSpec};

pub struct AcceptAll;

impl Admission for AcceptAll {
    fn admit(&mut self, _ctx: &AdmissionContext, arrivals: &mut Vec<JobSpec>, admitted: &mut Vec<JobSpec>) {
        admitted.append(arrivals);
    }
}
