-- Indexes in the order the typed reads return the small NVIDIA tables, so
-- that reading one walks the index instead of sorting every row in a
-- temporary b-tree first. (Measured afterwards: for these tables of a few
-- hundred rows the two cost the same; what costs is each row crossing into
-- Go. See docs/benchmarks.md.)
CREATE INDEX cuda_driver_order ON cuda_driver(cuda_key, os, kind);
CREATE INDEX driver_branch_order ON driver_branch(branch_key);
CREATE INDEX cudnn_support_order ON cudnn_support(cudnn_key, cuda_major, cuda_versions);
CREATE INDEX cuda_arch_order ON cuda_arch(cuda_key);
CREATE INDEX release_order ON release(component, version_key);
