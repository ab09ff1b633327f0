// Package config holds the data node's configuration: defaults, a TOML file,
// flags and RUVIO_* environment variables, one Validate, and CONFIG GET/SET.
package config
