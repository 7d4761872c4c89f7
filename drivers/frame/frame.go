// Package frame holds the framing of the tablectl serial protocol shared by the shoe and
// the shuffler (docs/protocol.md): start and end markers, length, message type, sequence
// number, payload and a CRC-16 checksum. It knows nothing of what the messages mean.
package frame

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Frame markers and limits (docs/protocol.md, "Framing").
const (
	STX = 0x02 // first byte of every frame
	ETX = 0x03 // last byte of every frame

	// MaxPayload is the largest payload a frame carries.
	MaxPayload = 250
	// header is TYPE and SEQ, counted in LEN with the payload.
	header = 3
	// Overhead is the bytes of a frame around its payload: STX LEN TYPE SEQ(2) CRC(2) ETX.
	Overhead = 8
	// MaxFrame is the longest frame on the wire.
	MaxFrame = MaxPayload + Overhead
)

// Frame is one decoded message: its type, sequence number and payload.
type Frame struct {
	Type    byte
	Seq     uint16
	Payload []byte
}

// CRC16 is CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no reflection,
// no final xor); CRC16([]byte("123456789")) is 0x29B1.
func CRC16(p []byte) uint16 {
	crc := uint16(0xFFFF)
	for _, b := range p {
		crc = crc<<8 ^ crcTable[byte(crc>>8)^b]
	}
	return crc
}

// crcTable holds the CRC of each byte value, for CRC16 to go a byte at a time.
var crcTable = func() (t [256]uint16) {
	for i := range t {
		crc := uint16(i) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		t[i] = crc
	}
	return t
}()

// Append appends the wire bytes of f to dst. It returns an error when the payload is too
// long for one frame.
func Append(dst []byte, f Frame) ([]byte, error) {
	if len(f.Payload) > MaxPayload {
		return dst, fmt.Errorf("frame type 0x%02X: payload of %d bytes, at most %d", f.Type, len(f.Payload), MaxPayload)
	}
	start := len(dst)
	dst = append(dst, STX, byte(len(f.Payload)+header), f.Type)
	dst = binary.BigEndian.AppendUint16(dst, f.Seq)
	dst = append(dst, f.Payload...)
	dst = binary.BigEndian.AppendUint16(dst, CRC16(dst[start+1:]))
	return append(dst, ETX), nil
}

// Write writes f to w as one frame.
func Write(w io.Writer, f Frame) error {
	var buf [MaxFrame]byte
	b, err := Append(buf[:0], f)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write frame type 0x%02X seq %d: %w", f.Type, f.Seq, err)
	}
	return nil
}

// Problem is a stretch of input that is not a good frame: noise between frames, a frame
// with a bad length, checksum or end marker, or a frame cut off by the end of input.
type Problem struct {
	Offset int64  // stream offset of the first byte concerned
	Len    int    // number of bytes concerned
	Reason string // what was wrong, for a person
	Frame  bool   // the stretch begins with a start marker: a frame may have been lost
}

// Splitter cuts a byte stream into frames. It resynchronises after noise or a damaged
// frame by looking for the next start marker that begins a good frame, so a good frame
// that follows damage is never lost. The zero Splitter is ready to use.
type Splitter struct {
	buf    []byte
	off    int64 // stream offset of buf[0]
	noise  int   // bytes of noise skipped, not yet reported
	noiseO int64 // offset of the first of them
	why    string
	frame  bool
}

// Feed adds p to the stream. For each good frame it calls frame, and for each bad stretch
// it calls problem, in stream order. The Payload handed to frame is valid only during the
// call.
//
// A bad stretch is reported when the next good frame arrives, when a new kind of damage
// starts, or at End; so the events do not depend on how the stream was cut into reads.
func (s *Splitter) Feed(p []byte, frame func(Frame), problem func(Problem)) {
	s.buf = append(s.buf, p...)
	s.scan(false, frame, problem)
}

// scan cuts frames from the buffer. At the end of the stream (final) a frame that cannot
// complete is damage, and the bytes after its start are searched for frames too.
func (s *Splitter) scan(final bool, frame func(Frame), problem func(Problem)) {
	i := 0
	for i < len(s.buf) {
		if s.buf[i] != STX {
			s.skip(i, "noise between frames")
			i++
			continue
		}
		f, n, why := parse(s.buf[i:])
		if n == 0 {
			if !final {
				break // wait for more bytes
			}
			n, why = 1, fmt.Sprintf("frame cut off after %d bytes", len(s.buf)-i)
		}
		if why != "" {
			if !final { // at the end, what is left is one damaged stretch
				s.report(problem)
			}
			s.skip(i, why)
			i++
			continue
		}
		s.report(problem)
		frame(f)
		i += n
	}
	if final {
		s.report(problem)
	}
	s.off += int64(i)
	s.buf = append(s.buf[:0], s.buf[i:]...)
}

// skip counts byte i of the buffer as part of a bad stretch.
func (s *Splitter) skip(i int, why string) {
	if s.noise == 0 {
		s.noiseO = s.off + int64(i)
		s.why = why
		s.frame = s.buf[i] == STX
	}
	s.noise++
}

// report hands on the bad stretch counted so far.
func (s *Splitter) report(problem func(Problem)) {
	if s.noise > 0 {
		problem(Problem{Offset: s.noiseO, Len: s.noise, Reason: s.why, Frame: s.frame})
		s.noise = 0
	}
}

// End reports whatever is left in the stream (noise, or a frame cut off part way) as a
// problem, hands on any good frame found inside it, and resets the splitter, as when the
// line goes down.
func (s *Splitter) End(frame func(Frame), problem func(Problem)) {
	s.scan(true, frame, problem)
}

// parse reads one frame at the start of b, which begins with STX. It returns the frame and
// its length, or n == 0 when more bytes are needed, or a reason when b does not start a
// good frame.
func parse(b []byte) (f Frame, n int, why string) {
	if len(b) < 2 {
		return Frame{}, 0, ""
	}
	l := int(b[1])
	if l < header || l > MaxPayload+header {
		return Frame{}, 1, fmt.Sprintf("bad frame length %d", l)
	}
	n = l + 5 // STX LEN ... CRC(2) ETX
	if len(b) < n {
		return Frame{}, 0, ""
	}
	if b[n-1] != ETX { // checked first: it is cheaper than the checksum
		return Frame{}, n, fmt.Sprintf("frame ends in 0x%02X, not ETX", b[n-1])
	}
	body := b[1 : 2+l]
	if got, want := binary.BigEndian.Uint16(b[2+l:]), CRC16(body); got != want {
		return Frame{}, n, fmt.Sprintf("bad checksum 0x%04X, want 0x%04X", got, want)
	}
	return Frame{Type: b[2], Seq: binary.BigEndian.Uint16(b[3:]), Payload: b[5 : 2+l]}, n, ""
}
