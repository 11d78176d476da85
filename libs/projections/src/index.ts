export { Projection, type ColumnType, type RowChange, type StreamReadModel } from './projection';
