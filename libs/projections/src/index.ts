export { Projection, type ColumnType, type StreamReadModel } from './projection';
