// Package api is tablectl's public vocabulary: the MQTT topic names, the payload of every
// message a table publishes, and the commands it takes with their fields and lowest
// roles. Every other package names a topic or a command through it, so a new topic or
// command is one entry here plus the code that acts on it. docs/mqtt.md documents the
// messages; the Mosquitto ACL in deploy/ is generated from the topics and the broker
// users here (MosquittoACL).
package api
