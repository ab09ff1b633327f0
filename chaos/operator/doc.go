// Package operator fails a replicated group over by hand when there is no
// coordinator: it promotes the most durable replica and repoints the rest.
package operator

// This package does by hand what the operator of a replicated ruvio
// group does when there is no coordinator: read every shard's INFO
// replication, promote the most durable replica with REPLICAOF NO ONE
// once the primary is gone, point the other nodes at it with REPLICAOF
// host port (again after each restart, since a node forgets a REPLICAOF
// when it restarts), and, for the reports, time a replica's catch-up and
// check at the end that every node holds the same data.
//
// The decisions (which replica to promote, whether a replica caught up,
// whether nodes converged) are functions of plain values in decide.go;
// Group gathers the observations over the network, calls them and carries
// out the result, recording what it did in the run's history.
