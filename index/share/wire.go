package share

import (
	"bufio"
	"encoding/json"
	"errors"
	"net"
	"time"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/index/vecbank"
	"github.com/memreview/memreview/review"
)

// The wire protocol: one JSON request per line, one JSON response per line,
// on a connection a client keeps for further requests.

const (
	opSearch   = "search"
	opRetrieve = "retrieve"
	opSync     = "sync"
	opSeq      = "seq"
	opCount    = "count"
	opRebuild  = "rebuild"
)

type request struct {
	Op     string         `json:"op"`
	MinSeq int64          `json:"min_seq,omitempty"`
	Search *index.Request `json:"search,omitempty"`
	Task   string         `json:"task,omitempty"`
	Scope  *review.Scope  `json:"scope,omitempty"`
	K      int            `json:"k,omitempty"`
	// The vector side's requests (vectors.go).
	Vector     *vecbank.Query             `json:"vector,omitempty"`
	Neighbours *vecbank.NeighboursRequest `json:"neighbours,omitempty"`
	VecSeq     int64                      `json:"vec_seq,omitempty"`
	VecEmb     int64                      `json:"vec_emb,omitempty"`
}

type response struct {
	Error   string         `json:"error,omitempty"`
	Seq     int64          `json:"seq"`
	Results *index.Results `json:"results,omitempty"`
	Scored  []index.Scored `json:"scored,omitempty"`
	Count   uint64         `json:"count,omitempty"`
	// The vector side's answers (vectors.go).
	Answer  *vecbank.Answer `json:"answer,omitempty"`
	Pairs   []vecbank.Pair  `json:"pairs,omitempty"`
	Model   string          `json:"model,omitempty"`
	Vectors *vecbank.Status `json:"vectors,omitempty"`
}

// requestTimeout bounds one exchange with the owner (a rebuild excepted):
// an owner that stops answering is treated as gone.
const requestTimeout = 10 * time.Second

type conn struct {
	net.Conn
	r   *bufio.Reader
	enc *json.Encoder
}

func (ix *Index) dial() (*conn, error) {
	c, err := net.DialTimeout("unix", ix.sock, time.Second)
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c, r: bufio.NewReaderSize(c, 64<<10), enc: json.NewEncoder(c)}, nil
}

// put returns an idle connection to the pool, or closes it when full.
func (ix *Index) put(c *conn) {
	select {
	case ix.pool <- c:
	default:
		c.Close()
	}
}

// call sends req to the owner and reads its response. A pooled connection
// that fails (its owner exited) is dropped and a fresh one dialled once.
func (ix *Index) call(req request, resp *response) error {
	var c *conn
	pooled := false
	select {
	case c = <-ix.pool:
		pooled = true
	default:
	}
	for {
		if c == nil {
			var err error
			if c, err = ix.dial(); err != nil {
				return err
			}
		}
		err := exchange(c, req, resp, req.Op == opRebuild)
		if err == nil {
			ix.put(c)
			return nil
		}
		c.Close()
		c = nil
		if !pooled {
			return err
		}
		pooled = false
	}
}

func exchange(c *conn, req request, resp *response, long bool) error {
	d := requestTimeout
	if long {
		d = time.Hour
	}
	c.SetDeadline(time.Now().Add(d))
	if err := c.enc.Encode(req); err != nil {
		return err
	}
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		return err
	}
	*resp = response{}
	return json.Unmarshal(line, resp)
}

// serve answers requests on ln until it is closed.
func (ix *Index) serve(ln net.Listener, own *index.Index) {
	defer ix.done.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				ix.opt.Logf("index: accept: %v", err)
			}
			return
		}
		go ix.answer(c, own)
	}
}

// answer serves one client connection.
func (ix *Index) answer(c net.Conn, own *index.Index) {
	defer c.Close()
	go func() { <-ix.stopCh(); c.Close() }()
	r := bufio.NewReaderSize(c, 64<<10)
	enc := json.NewEncoder(c)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		var req request
		var resp response
		if err := json.Unmarshal(line, &req); err != nil {
			resp.Error = "index: bad request: " + err.Error()
		} else {
			resp = ix.handle(own, req)
		}
		if err := enc.Encode(resp); err != nil {
			return
		}
	}
}

// stopCh is the channel closed when this owner stops.
func (ix *Index) stopCh() <-chan struct{} {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.stop == nil {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	return ix.stop
}

func handle(own *index.Index, req request) response {
	var resp response
	err := ensure(own, req.MinSeq)
	if err == nil {
		switch req.Op {
		case opSearch:
			if req.Search == nil {
				err = errors.New("index: search request without a search")
				break
			}
			resp.Results, err = own.Search(*req.Search)
		case opRetrieve:
			var scope review.Scope
			if req.Scope != nil {
				scope = *req.Scope
			}
			resp.Scored, err = own.Retrieve(req.Task, scope, req.K)
		case opSync, opSeq:
		case opCount:
			resp.Count, err = own.DocCount()
		case opRebuild:
			err = own.Rebuild()
		default:
			err = errors.New("index: unknown request " + req.Op)
		}
	}
	if err != nil {
		resp.Error = err.Error()
	}
	resp.Seq = own.Seq()
	return resp
}
