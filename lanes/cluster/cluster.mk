# The cluster test (lanes/cluster/cluster.sh): two trixie nodes
# booting systemd from an image of kav's own packages, Slurm 24.11 jobs of
# two tenants across them (Open MPI 5, MPICH with instant-on), podman
# containers through kav's CDI spec, and one node's upgrade, module reload
# and reboot. The image is built in $(BUILD)/cluster from the trixie root
# (cached per machine) and rebuilt when the tree changes. Included by the
# top-level Makefile; part of make check.

.PHONY: cluster-check cluster-image
cluster-image:
	lanes/cluster/image.sh $(BUILD)/cluster

cluster-check: ## the cluster lane: two systemd nodes, Slurm, podman
	lanes/cluster/cluster.sh $(BUILD)/cluster
