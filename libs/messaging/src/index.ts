export * from './command-bus';
export * from './event-bus';
export { CheckpointStore, MESSAGING_MIGRATIONS } from './checkpoints';
export { openMessaging, type Messaging, type MessagingOptions } from './open-messaging';
export { parseKafkaUrl } from './kafka/kafka-connection';
export { eventTopic, integrationTopic, relayMessage } from './kafka/kafka-event-bus';
