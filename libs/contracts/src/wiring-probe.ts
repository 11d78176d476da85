/**
 * The wiring probe: the thinnest slice through gateway → command → event store → broker →
 * dispatcher. It proves a deployment's plumbing end to end; the collection flow reuses every
 * piece of it.
 */
export const RECORD_PROBE = 'record-probe';

export interface RecordProbeCommand {
  probeId: string;
  note: string;
}

export const PROBE_STREAM_PREFIX = 'probe-';
export const probeStream = (probeId: string) => `${PROBE_STREAM_PREFIX}${probeId}`;

export const PROBE_RECORDED = 'ProbeRecorded';

/** Version 1 of ProbeRecorded's data. */
export interface ProbeRecordedV1 {
  probeId: string;
  note: string;
}
