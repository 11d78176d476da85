export * from './command-bus';
export * from './event-bus';
export { CheckpointStore } from './checkpoints';
export { MESSAGING_MIGRATIONS } from './migrations';
export { openMessaging, type Messaging, type MessagingOptions } from './open-messaging';
export { parseKafkaUrl } from './kafka/kafka-connection';
export { eventTopic, integrationTopic, relayMessage } from './kafka/kafka-event-bus';
