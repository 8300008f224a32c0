-- A build's arch list is often stated by another row than the one that
-- made the build (a build script at its commit, a printed
-- torch.cuda.get_arch_list()): its citation is its own, empty when the
-- build's provenance states the list.
ALTER TABLE build ADD COLUMN arch_source TEXT NOT NULL DEFAULT '';
ALTER TABLE build ADD COLUMN arch_url TEXT NOT NULL DEFAULT '';
ALTER TABLE build ADD COLUMN arch_ref TEXT NOT NULL DEFAULT '';
