import RequestQueue from 'kafkajs/src/network/requestQueue';

/*
 * kafkajs 2.2.4 (its last release) checks each broker connection's queue of requests waiting for
 * a send slot after every answer, and then arms a timer to check again. With nothing waiting and
 * no throttling the timer's delay is negative, so it fires after 1 ms and arms the next one: a
 * loop of about a thousand wake-ups a second per connection, for as long as the process lives.
 * It was most of an idle app's CPU (6% of a core). Only requests that wait need a later check:
 * one that cannot be sent at once is queued and schedules its own, and an answer checks the
 * queue again.
 */
const schedule = RequestQueue.prototype.scheduleCheckPendingRequests;
RequestQueue.prototype.scheduleCheckPendingRequests = function scheduleOnlyWhenWaiting(this: RequestQueue) {
  if (this.pending.length > 0) schedule.call(this);
};
