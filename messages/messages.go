// Package messages builds the JSON payloads a table publishes over MQTT (api's types,
// one a topic) from the round controller's effects. It does so deterministically, so
// replaying a journal gives the same messages with the same sequence numbers. That lets
// the daemon re-publish after a reconnect or a restart, and lets subscribers drop
// duplicates. docs/mqtt.md documents every message with an example.
package messages
