package deploy

import (
	"bytes"
	"os"
	"testing"

	"github.com/tablectl/tablectl/api"
)

// TestShippedACLIsGenerated: deploy/mosquitto/acl is exactly what api.MosquittoACL gives
// (`go generate ./deploy` writes it), so no topic or role is granted by hand.
func TestShippedACLIsGenerated(t *testing.T) {
	shipped, err := os.ReadFile("mosquitto/acl")
	if err != nil {
		t.Fatal(err)
	}
	if want := mustACL(t); !bytes.Equal(shipped, want) {
		t.Errorf("deploy/mosquitto/acl is not the generated ACL: run go generate ./deploy; it should read:\n%s", want)
	}
}
