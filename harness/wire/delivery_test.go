package wire

import (
	"context"
	"errors"
	"testing"
)

func TestDeliveryLifecycle(t *testing.T) {
	d := NewDelivery()
	if d.IsFinished() {
		t.Fatal("a new delivery is finished")
	}
	expired, cancel := context.WithCancel(context.Background())
	cancel()
	if err := d.Ready(expired); !errors.Is(err, context.Canceled) {
		t.Errorf("Ready before MarkReady = %v, want the context's error", err)
	}
	d.Status = 202
	d.MarkReady()
	d.MarkReady() // idempotent
	ctx, stop := context.WithTimeout(context.Background(), waitTimeout)
	defer stop()
	if err := d.Ready(ctx); err != nil || d.Status != 202 {
		t.Errorf("Ready = %v, status %d", err, d.Status)
	}
	if err := d.Finished(expired); !errors.Is(err, context.Canceled) {
		t.Errorf("Finished before MarkFinished = %v", err)
	}
	d.Err = errors.New("stream broke")
	d.MarkFinished()
	d.MarkFinished()
	if err := d.Finished(ctx); err == nil || err.Error() != "stream broke" {
		t.Errorf("Finished = %v, want the delivery's error", err)
	}
	select {
	case <-d.FinishedChan():
	default:
		t.Error("FinishedChan not closed")
	}
	if !d.IsFinished() {
		t.Error("IsFinished = false after MarkFinished")
	}
}

func TestCompletedDelivery(t *testing.T) {
	d := Completed()
	if !d.IsFinished() {
		t.Fatal("Completed() is not finished")
	}
	if err := d.Ready(context.Background()); err != nil {
		t.Errorf("Ready = %v", err)
	}
}

func TestDeliveryErrAfterReady(t *testing.T) {
	// A stream that breaks off after the headers sets Err before finishing: Finished reports it,
	// Ready keeps what was known when the headers came.
	d := NewDelivery()
	d.MarkReady()
	d.Err = errors.New("stream broke")
	d.MarkFinished()
	ctx := context.Background()
	if err := d.Ready(ctx); err != nil {
		t.Errorf("Ready = %v, want the error known at ready time (none)", err)
	}
	if err := d.Finished(ctx); err == nil {
		t.Error("Finished does not report the stream's error")
	}

	failed := NewDelivery()
	failed.Err = errors.New("connection refused")
	failed.MarkFinished()
	if err := failed.Ready(ctx); err == nil {
		t.Error("Ready does not report a failed request")
	}
}
