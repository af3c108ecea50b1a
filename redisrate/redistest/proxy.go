package redistest

import (
	"net"
	"sync"
	"time"
)

// Proxy is a loopback TCP proxy in front of a server, for tests and
// benchmarks of what a slow or stalled Redis does to a client: it can add
// a delay each way, and hold everything sent either way until resumed.
type Proxy struct {
	// Addr is the proxy's host:port on 127.0.0.1.
	Addr   string
	ln     net.Listener
	target string
	delay  time.Duration
	// sleep waits out a chunk's delay; tests replace it to see the waits.
	sleep func(time.Duration)

	mu     sync.Mutex
	paused chan struct{} // closed on Resume; nil when not paused
	held   chan struct{} // a value each time data is held by a pause
	conns  map[net.Conn]bool
	wg     sync.WaitGroup
}

// NewProxy starts a proxy to target that delays every chunk of data by
// delay each way (0: none); the round trip through it is then at least
// twice delay. Close stops it.
func NewProxy(target string, delay time.Duration) (*Proxy, error) {
	return newProxy(target, delay, time.Sleep)
}

// newProxy is NewProxy with the wait for a chunk's due time given.
func newProxy(target string, delay time.Duration, sleep func(time.Duration)) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{Addr: ln.Addr().String(), ln: ln, target: target, delay: delay, sleep: sleep,
		held: make(chan struct{}, 1), conns: map[net.Conn]bool{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Pause holds all data from now on, in both directions, until Resume:
// Redis seems to stall.
func (p *Proxy) Pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused == nil {
		p.paused = make(chan struct{})
	}
}

// Resume forwards what a Pause held, and all data after it.
func (p *Proxy) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused != nil {
		close(p.paused)
		p.paused = nil
	}
}

// Held receives a value when data arrived while paused and is being held
// (at most one value waits in it).
func (p *Proxy) Held() <-chan struct{} { return p.held }

// Close stops the proxy and closes its connections.
func (p *Proxy) Close() {
	_ = p.ln.Close()
	p.Resume()
	p.mu.Lock()
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = in.Close()
			continue
		}
		p.mu.Lock()
		p.conns[in], p.conns[out] = true, true
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(out, in)
		go p.pipe(in, out)
	}
}

// chunk is data read at a time, due to be written delay later.
type chunk struct {
	b   []byte
	due time.Time
}

// pipe copies from src to dst, chunk by chunk, each delay after it was
// read and not while paused; it closes both ends when either fails.
func (p *Proxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	queue := make(chan chunk, 1024)
	var writer sync.WaitGroup
	writer.Add(1)
	go func() {
		defer writer.Done()
		for c := range queue {
			if d := time.Until(c.due); d > 0 {
				p.sleep(d)
			}
			p.hold()
			if _, err := dst.Write(c.b); err != nil {
				_ = src.Close()
				for range queue {
				}
				return
			}
		}
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			queue <- chunk{append([]byte(nil), buf[:n]...), time.Now().Add(p.delay)}
		}
		if err != nil {
			break
		}
	}
	close(queue)
	writer.Wait()
	_ = dst.Close()
	_ = src.Close()
}

// hold waits while the proxy is paused, saying so on held.
func (p *Proxy) hold() {
	p.mu.Lock()
	paused := p.paused
	p.mu.Unlock()
	if paused == nil {
		return
	}
	select {
	case p.held <- struct{}{}:
	default:
	}
	<-paused
}
