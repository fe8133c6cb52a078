//! Workload generators and trace readers.
