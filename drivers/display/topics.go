package display

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// checkTopic checks a topic name for publishing.
func checkTopic(topic string) error {
	if topic == "" {
		return fmt.Errorf("display: publish: topic is empty")
	}
	if !utf8.ValidString(topic) {
		return fmt.Errorf("display: publish: topic %q is not valid UTF-8", topic)
	}
	if i := strings.IndexAny(topic, "+#\x00"); i >= 0 {
		return fmt.Errorf("display: publish: topic %q contains %q at byte %d (wildcards and NUL are not allowed in a topic name)", topic, topic[i], i)
	}
	return nil
}
