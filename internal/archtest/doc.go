// Package archtest holds the test that keeps the packages to docs/ARCHITECTURE.md: each
// imports only the packages of this module its row there allows.
package archtest
