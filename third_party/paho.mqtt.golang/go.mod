module github.com/eclipse/paho.mqtt.golang

go 1.24.0

require (
	github.com/gorilla/websocket v1.5.3
	golang.org/x/net v0.44.0
	golang.org/x/sync v0.17.0
)
