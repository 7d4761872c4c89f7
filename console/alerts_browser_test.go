package console

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tablectl/tablectl/alerts"
	"github.com/tablectl/tablectl/api"
)

// TestAlertAnsweredInBrowser: an alert raised (a table held past the site's limit)
// shows on the floor's notices and in the tab's title until it is acknowledged; on the
// alerts' page a dealer sees it with no way to acknowledge; a supervisor's
// acknowledgement needs a note, then shows who, when and the note, and the console
// records it with the archive (docs/pit.md, "Alerts").
func TestAlertAnsweredInBrowser(t *testing.T) {
	t.Parallel()
	onScreens(t, func(t *testing.T, sc screen, ctx context.Context) {
		tc := newTestConsoleWith(t, nil, func(o *Options) { o.Alerts = &alerts.Rules{HeldAfter: 5 * time.Minute} })
		online(tc, "t1", "rws")
		online(tc, "t2", "rws")
		tc.srv.Ingest("tablectl/v1/t1/state", []byte(heldAt("t1", tc.clock.now())))
		tc.clock.add(7 * time.Minute)
		tc.srv.checkAlerts()
		_, recs := alertRecords(t, tc)
		if len(recs) != 1 {
			t.Fatalf("alerts recorded: %+v", recs)
		}
		id := recs[0].ID

		loginPage(t, ctx, tc.http.URL, "D4", "dealer-password-4")
		until(t, ctx, "the alert on the floor", `!!document.querySelector('.att.alert-open')`)
		if got := text(t, ctx, ".att.alert-open"); got != "t1 ALERT: held 7 minutes for #4 simultaneous draw · answer" {
			t.Errorf("the floor's notice: %q", got)
		}
		if title := evaluate[string](t, ctx, `document.title`); !strings.HasPrefix(title, "(1 ALERT, 1 HELD)") {
			t.Errorf("the title: %q", title)
		}
		shot(t, ctx, sc, "floor-alert")
		click(t, ctx, ".att.alert-open")
		until(t, ctx, "the alerts' page", `location.pathname === "/alerts.html" && document.body.dataset.ready === "1" && !!document.querySelector('.alert-card')`)
		if evaluate[bool](t, ctx, `!!document.querySelector('button.ack')`) {
			t.Error("a dealer is offered to acknowledge")
		}
		if got := text(t, ctx, ".alert-card .alert-who"); !strings.Contains(got, "Pit Supervisor or above") {
			t.Errorf("the dealer's card says %q", got)
		}

		click(t, ctx, "#logout")
		until(t, ctx, "logged out", `location.pathname === "/login.html" && document.readyState === "complete"`)
		loginPage(t, ctx, tc.http.URL, "S17", "supervisor-pass-17")
		if _, err := chromedp.Run(ctx, chromedp.Navigate(tc.http.URL+"/alerts.html#"+id)); err != nil {
			t.Fatal(err)
		}
		until(t, ctx, "the acknowledge button", `!!document.querySelector('button.ack')`)
		click(t, ctx, "button.ack")
		until(t, ctx, "the prompt for a note", `document.querySelector('.alert-card .reply').textContent.includes("needs a note")`)
		if _, recs := alertRecords(t, tc); len(recs) != 1 {
			t.Fatalf("an acknowledgement with no note was sent: %+v", recs)
		}
		evaluate[bool](t, ctx, `(() => { const n = document.querySelector('.alert-note'); n.value = "Pit manager called; decided swapped."; n.dispatchEvent(new Event('input')); return true; })()`)
		shot(t, ctx, sc, "alert-note")
		click(t, ctx, "button.ack")
		until(t, ctx, "the acknowledgement shown", `!!document.querySelector('.alert-card.acked .alert-ack')`)
		if got := text(t, ctx, ".alert-card.acked .alert-ack"); !strings.HasPrefix(got, "Acknowledged by S17 (supervisor) at ") || !strings.Contains(got, "Pit manager called; decided swapped.") {
			t.Errorf("the acknowledgement reads %q", got)
		}
		until(t, ctx, "kept in the archive", `document.querySelector('.alert-card.acked .alert-kept').textContent === "Kept in the archive."`)
		_, recs = alertRecords(t, tc)
		if len(recs) != 2 || recs[1].Ack == nil || recs[1].Ack.By != "S17" || recs[1].Ack.Note != "Pit manager called; decided swapped." || recs[1].Kind != api.AlertHeld {
			t.Fatalf("the acknowledgement recorded: %+v", recs)
		}
		shot(t, ctx, sc, "alert-acknowledged")
		if _, err := chromedp.Run(ctx, chromedp.Navigate(tc.http.URL+"/")); err != nil {
			t.Fatal(err)
		}
		until(t, ctx, "the floor", `document.body.dataset.ready === "1"`)
		until(t, ctx, "no open alert on the floor", `!document.querySelector('.att.alert-open')`)
	})
}
