package share

import (
	"context"
	"errors"
	"time"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/index/vecbank"
)

// The vector side of the shared index: the owner holds the bank's vector
// index (index/vecbank) beside Bleve when Options.Vectors is set, catches
// it up as it catches Bleve up, and answers other processes' vector
// searches, neighbour pairs and status on the same socket. A process
// whose owner holds no vector side gets answers that say so (Why), never
// an error: retrieval then runs on BM25 alone.

const (
	opVectorSearch = "vector_search"
	opNeighbours   = "neighbours"
	opVectorStatus = "vector_status"
)

// noSide is the answer of an owner without a vector side.
const noSide = "this bank's index holds no vectors"

// startVectors opens the owner's vector side (loading its file, or
// rebuilding it from the bank, may take a while: searches meanwhile run
// on BM25 alone) and holds it while stop stays open; a failure is logged,
// and the owner serves without one.
func (ix *Index) startVectors(stop, ready chan struct{}) {
	defer ix.done.Done()
	defer close(ready)
	side, err := vecbank.Open(*ix.opt.Vectors)
	if err != nil {
		ix.opt.Logf("index: no vector index: %v", err)
		return
	}
	ix.mu.Lock()
	if ix.closed || ix.stop != stop {
		ix.mu.Unlock()
		side.Close()
		return
	}
	ix.vec = side
	ix.mu.Unlock()
}

// LocalVectors is the vector side when this process owns the index (the
// application's embedder drives it), else nil.
func (ix *Index) LocalVectors() *vecbank.Side {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.vec
}

// vectorsWait is how long a search waits for the owner's vector side to
// open (a small bank's opens in milliseconds; a large one's file takes
// seconds to load, and searches meanwhile run on BM25 alone).
const vectorsWait = 2 * time.Second

// readyVectors is the local vector side, waiting up to vectorsWait for it
// to open.
func (ix *Index) readyVectors() *vecbank.Side {
	ix.mu.Lock()
	ready := ix.vecReady
	ix.mu.Unlock()
	if ready != nil {
		select {
		case <-ready:
		case <-time.After(vectorsWait):
		}
	}
	return ix.LocalVectors()
}

func (ix *Index) catchUpVectors() {
	if side := ix.LocalVectors(); side != nil {
		if err := side.CatchUp(); err != nil && !ix.isClosed() {
			ix.opt.Logf("index: catch up the vectors: %v", err)
		}
	}
}

// VectorSearch answers q from the owner's vector side once it holds at
// least change seq and embeddings feed position emb.
func (ix *Index) VectorSearch(ctx context.Context, q vecbank.Query, seq, emb int64) (*vecbank.Answer, error) {
	var out *vecbank.Answer
	err := ix.do(request{Op: opVectorSearch, Vector: &q, VecSeq: seq, VecEmb: emb}, func(*index.Index) error {
		side := ix.readyVectors()
		if side == nil {
			out = &vecbank.Answer{Why: noSide}
			return nil
		}
		if err := side.Ensure(seq, emb); err != nil {
			return err
		}
		var err error
		out, err = side.Search(ctx, q)
		return err
	}, func(r *response) { out = r.Answer })
	if err == nil && out == nil {
		out = &vecbank.Answer{Why: noSide}
	}
	return out, err
}

// Neighbours returns the owner's near pairs among req's items and the
// model they come from ("" when it holds no vectors), once the vector
// side has caught up with change seq and embeddings feed position emb
// (as VectorSearch).
func (ix *Index) Neighbours(ctx context.Context, req vecbank.NeighboursRequest, seq, emb int64) ([]vecbank.Pair, string, error) {
	var pairs []vecbank.Pair
	var model string
	err := ix.do(request{Op: opNeighbours, Neighbours: &req, VecSeq: seq, VecEmb: emb}, func(*index.Index) error {
		side := ix.readyVectors()
		if side == nil {
			return nil
		}
		if err := side.Ensure(seq, emb); err != nil {
			return err
		}
		var err error
		pairs, model, err = side.Neighbours(ctx, req)
		return err
	}, func(r *response) { pairs, model = r.Pairs, r.Model })
	return pairs, model, err
}

// VectorStatus is the owner's vector side's status (zero without one).
func (ix *Index) VectorStatus() (vecbank.Status, error) {
	var st vecbank.Status
	err := ix.do(request{Op: opVectorStatus}, func(*index.Index) error {
		if side := ix.LocalVectors(); side != nil {
			st = side.Status()
		}
		return nil
	}, func(r *response) {
		if r.Vectors != nil {
			st = *r.Vectors
		}
	})
	return st, err
}

// handle answers one request from another process.
func (ix *Index) handle(own *index.Index, req request) response {
	switch req.Op {
	case opVectorSearch, opNeighbours, opVectorStatus:
	default:
		return handle(own, req)
	}
	resp := response{Seq: own.Seq()}
	side := ix.readyVectors()
	var err error
	switch {
	case req.Op == opVectorStatus:
		if side != nil {
			st := side.Status()
			resp.Vectors = &st
		}
	case req.Op == opVectorSearch && req.Vector == nil, req.Op == opNeighbours && req.Neighbours == nil:
		err = errors.New("index: " + req.Op + " request without its query")
	case side == nil && req.Op == opVectorSearch:
		resp.Answer = &vecbank.Answer{Why: noSide}
	case side == nil:
	case req.Op == opVectorSearch:
		if err = side.Ensure(req.VecSeq, req.VecEmb); err == nil {
			resp.Answer, err = side.Search(context.Background(), *req.Vector)
		}
	default:
		if err = side.Ensure(req.VecSeq, req.VecEmb); err == nil {
			resp.Pairs, resp.Model, err = side.Neighbours(context.Background(), *req.Neighbours)
		}
	}
	if err != nil {
		resp.Error = err.Error()
	}
	return resp
}
