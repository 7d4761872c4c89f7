package tablecmd

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/internal/cli"
)

func runSettleWith(t *testing.T, input string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := Run(context.Background(), []string{"settle"}, cli.Stdio{In: strings.NewReader(input), Out: &out, Err: &errOut})
	return out.String(), err
}

// TestSettleDocumentedExample: the round of the settle command's documentation: the
// standing player's Banker bet over the box's maximum Differential is cut back (RWS
// Baccarat 5.1) and wins on what is left.
func TestSettleDocumentedExample(t *testing.T) {
	t.Parallel()
	out, err := runSettleWith(t, `{"rules":"rws","cards":{"player":["KS","3D","2C"],"banker":["4H","3S"]},
		"limits":{"min":{"banker":100},"max":{"banker":20000},"max_differential":10000},"excess":"reject",
		"wagers":[{"box":"1","seat":"seated","bet":"banker","stake":6000},{"box":"1","seat":"standing","bet":"banker","stake":5000}]}`)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"winner":"banker","player_points":5,"banker_points":7,"natural":false,"settlements":[` +
		`{"box":"1","seat":"seated","bet":"banker","stake":6000,"effective_stake":6000,"result":"win","won":6000,"returned":12000,"rule":"accepted"},` +
		`{"box":"1","seat":"standing","bet":"banker","stake":5000,"effective_stake":4000,"result":"win","won":4000,"returned":9000,` +
		`"rule":"cut_back: 4000 of 5000 plays: box 1's Differential of 11000 (banker 11000, player 0) is over the maximum of 10000: the excess banker Bets are rejected, seated player first (RWS Baccarat 5.1)"}]}` + "\n"
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
}

// TestSettleHelpDocumentsInput: settle -h says what the input holds.
func TestSettleHelpDocumentsInput(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	err := Run(context.Background(), []string{"settle", "-h"}, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut})
	if err == nil || !strings.Contains(err.Error(), "help") {
		t.Fatalf("settle -h: %v", err)
	}
	for _, want := range []string{`"rules":"rws"`, "cards", "wagers", "seat", "limits", "max_differential", "excess", "pro_rata",
		"rounding", "royal_paytable", "royal_tiers", "decks", "effective_stake", "exit status 2", "insurance", "after_four_cards",
		"insurance_offers", "line and column", "counted from 1"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("settle -h does not mention %q:\n%s", want, errOut.String())
		}
	}
}

// TestSettleBadInput: a fault in the input is the command's error, naming what and
// where (the package's tests go through every fault), and nothing is printed.
func TestSettleBadInput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ input, want string }{
		{`{"rules":"rws","cards":{"player":["KS","3D","2C"],"banker":["4H","3S"]},"wagers":[{"box":"1","bet":"bankr","stake":100}]}`, `settle: wager 1, bet: unknown bet "bankr"`},
		{"{\"rules\":\"rws\",\n \"cards\": x}", `settle: the input: line 2, column 11: invalid character 'x' looking for beginning of value`},
	} {
		out, err := runSettleWith(t, c.input)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %s", c.input, err, c.want)
		}
		if out != "" {
			t.Errorf("printed %q with the error", out)
		}
	}
}

// TestSettleExitStatus: bad input ends tablectl settle with exit status 2, the error on
// standard error.
func TestSettleExitStatus(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "settle")
	cmd.Env = append(os.Environ(), "TABLECTL_TEST_MAIN=1")
	cmd.Stdin = strings.NewReader(`{"rules":"rws","cards":{"player":["KS","3D","2C"],"banker":["4H","3S"]},"wagers":[{"box":"1","bet":"banker","stake":-1}]}`)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("exit: %v, want status 2", err)
	}
	if !strings.Contains(stderr.String(), "wager 1, stake: -1") {
		t.Errorf("stderr: %s", stderr.String())
	}
}
