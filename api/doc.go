// Package api is tablectl's public vocabulary: the MQTT topic names, the payload of every
// message a table publishes with the words it carries (roles, cards, bets, irregularity
// kinds, decisions, signed journal heads), and the commands it takes with their fields
// and lowest roles. It imports no other package of tablectl, so a pit system reads the
// messages and gives commands without the game's engine; the packages that know both
// sides convert the engine's values to api's words (messages/wire.go). Every other
// package names a topic or a command through it. docs/mqtt.md documents the messages;
// the Mosquitto ACL in deploy/ is generated from the topics and the broker users here
// (MosquittoACL).
package api
