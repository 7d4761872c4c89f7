package console

import (
	"context"
	"strings"
	"testing"
)

// TestControlCharacterInAReportInBrowser: a dealer's report whose detail holds a control
// character (a BEL, put in the field by a script, as a scanner or a paste might) is
// refused by the console before anything is published, and the page shows the refusal
// where the button was, in the table's words: the field, the character and its offset.
func TestControlCharacterInAReportInBrowser(t *testing.T) {
	t.Parallel()
	onScreens(t, func(t *testing.T, sc screen, ctx context.Context) {
		tc := newTestConsole(t)
		replyAsTable(tc)
		online(tc, "t1", "rws")
		tc.srv.Ingest("tablectl/v1/t1/state", []byte(dealing("t1", "rws")))
		loginPage(t, ctx, tc.http.URL, "D4", "dealer-password-4")
		openTable(t, ctx, tc.http.URL, "t1")
		until(t, ctx, "the report form", `!!document.getElementById("report-detail") && !!document.querySelector('button[data-cmd="report"]')`)
		evaluate[bool](t, ctx, `(() => {
			const k = document.getElementById("report-kind");
			k.value = "exposed_card";
			k.dispatchEvent(new Event("change"));
			document.getElementById("report-detail").value = "card\u0007 face up in box 3";
			return true; })()`)
		click(t, ctx, `button[data-cmd="report"]`)
		until(t, ctx, "the report's question", visible("#confirm-yes"))
		click(t, ctx, "#confirm-yes")
		until(t, ctx, "the refusal", `document.getElementById("reply").classList.contains("refused")`)
		const want = "Report: the console refused it: command refused: detail holds control character U+0007 at byte 4; it takes tab and line feed, no other"
		if got := text(t, ctx, "#reply"); got != want {
			t.Errorf("the page says %q, want %q", got, want)
		}
		if !shown(t, ctx, "#reply") {
			t.Error("the refusal is not on screen")
		}
		shot(t, ctx, sc, "report-control-character")
		if sent := tc.table.sent(); len(sent) != 0 {
			t.Fatalf("the refused report was published: %v", sent)
		}
		if !strings.Contains(tc.log.String(), "audit=refused user=D4") {
			t.Errorf("the refusal is not audited:\n%s", tc.log)
		}
	})
}
