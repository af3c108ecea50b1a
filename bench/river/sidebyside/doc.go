// Package sidebyside measures the ledger's Step store loop against River's
// burn-down, interleaved on one PostgreSQL cluster.
package sidebyside
