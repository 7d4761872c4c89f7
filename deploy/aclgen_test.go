package deploy

import (
	"bytes"
	"os"
	"testing"

	"github.com/tablectl/tablectl/api"
)

// mustACL is the ACL api.MosquittoACL generates with the options of deploy/doc.go's
// go:generate line (none: the archive floor alone, no central layout).
func mustACL(t *testing.T) []byte {
	t.Helper()
	acl, err := api.MosquittoACL(api.ACLOptions{})
	if err != nil {
		t.Fatalf("api.MosquittoACL: %v", err)
	}
	return acl
}

// TestShippedACLIsGenerated: deploy/mosquitto/acl is exactly what api.MosquittoACL gives
// (`go generate ./deploy` writes it), so no topic or role is granted by hand.
func TestShippedACLIsGenerated(t *testing.T) {
	t.Parallel()
	shipped, err := os.ReadFile("mosquitto/acl")
	if err != nil {
		t.Fatal(err)
	}
	if want := mustACL(t); !bytes.Equal(shipped, want) {
		t.Errorf("deploy/mosquitto/acl is not the generated ACL: run go generate ./deploy; it should read:\n%s", want)
	}
}
