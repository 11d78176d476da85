import { fromJSON, type PackageDefinition } from '@grpc/proto-loader';

export const COMMANDS_PACKAGE = 'paygate.commands.v1';
export const COMMANDS_GRPC_SERVICE = 'Commands';

/**
 * The one RPC every service serves. Its messages carry JSON: the typed contracts and their
 * JSON Schemas live in libs/contracts, so the wire stays the same whatever a context adds.
 * As a .proto file it reads:
 *
 *   package paygate.commands.v1;
 *   service Commands { rpc Send (CommandRequest) returns (CommandReply); }
 *   message CommandRequest { string service = 1; string command = 2; bytes payload = 3; }
 *   message CommandReply { bytes reply = 1; }   // a CommandReply as JSON
 *
 * Kept as a descriptor object rather than a file so the built apps need no asset beside them.
 */
const DESCRIPTOR: Parameters<typeof fromJSON>[0] = {
  nested: {
    paygate: {
      nested: {
        commands: {
          nested: {
            v1: {
              nested: {
                Commands: {
                  methods: {
                    Send: { requestType: 'CommandRequest', responseType: 'CommandReply', comment: 'One command or query to the service that owns it.' },
                  },
                },
                CommandRequest: {
                  fields: { service: { type: 'string', id: 1 }, command: { type: 'string', id: 2 }, payload: { type: 'bytes', id: 3 } },
                },
                CommandReply: { fields: { reply: { type: 'bytes', id: 1 } } },
              },
            },
          },
        },
      },
    },
  },
};

export interface CommandRequestMessage {
  service: string;
  command: string;
  payload: Buffer;
}

export interface CommandReplyMessage {
  reply: Buffer;
}

export function commandsPackageDefinition(): PackageDefinition {
  return fromJSON(DESCRIPTOR, { keepCase: true, defaults: true });
}
