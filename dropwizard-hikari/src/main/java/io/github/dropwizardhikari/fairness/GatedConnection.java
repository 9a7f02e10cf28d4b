package io.github.dropwizardhikari.fairness;

import java.sql.Array;
import java.sql.Blob;
import java.sql.CallableStatement;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.NClob;
import java.sql.PreparedStatement;
import java.sql.SQLClientInfoException;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.SQLXML;
import java.sql.Savepoint;
import java.sql.ShardingKey;
import java.sql.Statement;
import java.sql.Struct;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * A connection borrowed through the {@link FairBorrowGate}, which gives its place back exactly once, on the first of
 * {@link #close()}, {@link #abort(Executor)} or {@link #evicted()}. Every other call goes to HikariCP's connection,
 * so its resets, statement tracking and eviction still apply; statements and metadata lead back here
 * ({@link LinkedToGatedConnection}), so closing through them returns the place too.
 */
public final class GatedConnection implements Connection {
    // a field updater, not an AtomicBoolean: one object less on every borrow
    private static final AtomicIntegerFieldUpdater<GatedConnection> PLACE_RETURNED =
        AtomicIntegerFieldUpdater.newUpdater(GatedConnection.class, "placeReturned");

    private final Connection delegate;
    private final FairBorrowGate gate;
    private volatile int placeReturned;

    GatedConnection(Connection delegate, FairBorrowGate gate) {
        this.delegate = delegate;
        this.gate = gate;
    }

    /** @return HikariCP's connection, for HikariCP's calls that need it ({@code evictConnection}) */
    public Connection pooled() {
        return delegate;
    }

    /** Gives the place back after HikariCP's close, even a failed one: HikariCP has the connection back by then. */
    @Override
    public void close() throws SQLException {
        try {
            delegate.close();
        } finally {
            returnPlace();
        }
    }

    /** Also closes HikariCP's connection, evicting it, since JDBC does not require a close after an abort. */
    @Override
    public void abort(Executor executor) throws SQLException {
        try {
            delegate.abort(executor);
        } finally {
            try {
                delegate.close();
            } catch (SQLException alreadyBroken) {
                // the connection was just aborted: HikariCP's reset fails, evicts it, and takes the entry back
            } finally {
                returnPlace();
            }
        }
    }

    /** HikariCP evicted this connection on request and no longer counts it as borrowed: the place goes back now. */
    public void evicted() {
        returnPlace();
    }

    @Override
    public boolean isClosed() throws SQLException {
        return delegate.isClosed();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        return delegate.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || delegate.isWrapperFor(iface);
    }

    @Override
    public String toString() {
        return "GatedConnection{" + delegate + "}";
    }

    private void returnPlace() {
        if (PLACE_RETURNED.compareAndSet(this, 0, 1)) {
            gate.release();
        }
    }

    @Override
    public Statement createStatement() throws SQLException {
        return LinkedToGatedConnection.link(delegate.createStatement(), Statement.class, this, null);
    }

    @Override
    public PreparedStatement prepareStatement(String sql) throws SQLException {
        return LinkedToGatedConnection.link(delegate.prepareStatement(sql), PreparedStatement.class, this, null);
    }

    @Override
    public CallableStatement prepareCall(String sql) throws SQLException {
        return LinkedToGatedConnection.link(delegate.prepareCall(sql), CallableStatement.class, this, null);
    }

    @Override
    public String nativeSQL(String sql) throws SQLException {
        return delegate.nativeSQL(sql);
    }

    @Override
    public void setAutoCommit(boolean autoCommit) throws SQLException {
        delegate.setAutoCommit(autoCommit);
    }

    @Override
    public boolean getAutoCommit() throws SQLException {
        return delegate.getAutoCommit();
    }

    @Override
    public void commit() throws SQLException {
        delegate.commit();
    }

    @Override
    public void rollback() throws SQLException {
        delegate.rollback();
    }

    @Override
    public DatabaseMetaData getMetaData() throws SQLException {
        return LinkedToGatedConnection.link(delegate.getMetaData(), DatabaseMetaData.class, this, null);
    }

    @Override
    public void setReadOnly(boolean readOnly) throws SQLException {
        delegate.setReadOnly(readOnly);
    }

    @Override
    public boolean isReadOnly() throws SQLException {
        return delegate.isReadOnly();
    }

    @Override
    public void setCatalog(String catalog) throws SQLException {
        delegate.setCatalog(catalog);
    }

    @Override
    public String getCatalog() throws SQLException {
        return delegate.getCatalog();
    }

    @Override
    public void setTransactionIsolation(int level) throws SQLException {
        delegate.setTransactionIsolation(level);
    }

    @Override
    public int getTransactionIsolation() throws SQLException {
        return delegate.getTransactionIsolation();
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        return delegate.getWarnings();
    }

    @Override
    public void clearWarnings() throws SQLException {
        delegate.clearWarnings();
    }

    @Override
    public Statement createStatement(int resultSetType, int resultSetConcurrency) throws SQLException {
        return LinkedToGatedConnection.link(delegate.createStatement(resultSetType, resultSetConcurrency), Statement.class, this, null);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int resultSetType,
            int resultSetConcurrency) throws SQLException {
        return LinkedToGatedConnection.link(delegate.prepareStatement(sql, resultSetType, resultSetConcurrency), PreparedStatement.class, this, null);
    }

    @Override
    public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency) throws SQLException {
        return LinkedToGatedConnection.link(delegate.prepareCall(sql, resultSetType, resultSetConcurrency), CallableStatement.class, this, null);
    }

    @Override
    public Map<String, Class<?>> getTypeMap() throws SQLException {
        return delegate.getTypeMap();
    }

    @Override
    public void setTypeMap(Map<String, Class<?>> map) throws SQLException {
        delegate.setTypeMap(map);
    }

    @Override
    public void setHoldability(int holdability) throws SQLException {
        delegate.setHoldability(holdability);
    }

    @Override
    public int getHoldability() throws SQLException {
        return delegate.getHoldability();
    }

    @Override
    public Savepoint setSavepoint() throws SQLException {
        return delegate.setSavepoint();
    }

    @Override
    public Savepoint setSavepoint(String name) throws SQLException {
        return delegate.setSavepoint(name);
    }

    @Override
    public void rollback(Savepoint savepoint) throws SQLException {
        delegate.rollback(savepoint);
    }

    @Override
    public void releaseSavepoint(Savepoint savepoint) throws SQLException {
        delegate.releaseSavepoint(savepoint);
    }

    @Override
    public Statement createStatement(int resultSetType, int resultSetConcurrency,
            int resultSetHoldability) throws SQLException {
        return LinkedToGatedConnection.link(delegate.createStatement(resultSetType, resultSetConcurrency, resultSetHoldability), Statement.class, this, null);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency,
            int resultSetHoldability) throws SQLException {
        return LinkedToGatedConnection.link(delegate.prepareStatement(sql, resultSetType, resultSetConcurrency, resultSetHoldability), PreparedStatement.class, this, null);
    }

    @Override
    public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency,
            int resultSetHoldability) throws SQLException {
        return LinkedToGatedConnection.link(delegate.prepareCall(sql, resultSetType, resultSetConcurrency, resultSetHoldability), CallableStatement.class, this, null);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int autoGeneratedKeys) throws SQLException {
        return LinkedToGatedConnection.link(delegate.prepareStatement(sql, autoGeneratedKeys), PreparedStatement.class, this, null);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int[] columnIndexes) throws SQLException {
        return LinkedToGatedConnection.link(delegate.prepareStatement(sql, columnIndexes), PreparedStatement.class, this, null);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, String[] columnNames) throws SQLException {
        return LinkedToGatedConnection.link(delegate.prepareStatement(sql, columnNames), PreparedStatement.class, this, null);
    }

    @Override
    public Clob createClob() throws SQLException {
        return delegate.createClob();
    }

    @Override
    public Blob createBlob() throws SQLException {
        return delegate.createBlob();
    }

    @Override
    public NClob createNClob() throws SQLException {
        return delegate.createNClob();
    }

    @Override
    public SQLXML createSQLXML() throws SQLException {
        return delegate.createSQLXML();
    }

    @Override
    public boolean isValid(int timeout) throws SQLException {
        return delegate.isValid(timeout);
    }

    @Override
    public void setClientInfo(String name, String value) throws SQLClientInfoException {
        delegate.setClientInfo(name, value);
    }

    @Override
    public void setClientInfo(Properties properties) throws SQLClientInfoException {
        delegate.setClientInfo(properties);
    }

    @Override
    public String getClientInfo(String name) throws SQLException {
        return delegate.getClientInfo(name);
    }

    @Override
    public Properties getClientInfo() throws SQLException {
        return delegate.getClientInfo();
    }

    @Override
    public Array createArrayOf(String typeName, Object[] elements) throws SQLException {
        return delegate.createArrayOf(typeName, elements);
    }

    @Override
    public Struct createStruct(String typeName, Object[] attributes) throws SQLException {
        return delegate.createStruct(typeName, attributes);
    }

    @Override
    public void setSchema(String schema) throws SQLException {
        delegate.setSchema(schema);
    }

    @Override
    public String getSchema() throws SQLException {
        return delegate.getSchema();
    }

    @Override
    public void setNetworkTimeout(Executor executor, int milliseconds) throws SQLException {
        delegate.setNetworkTimeout(executor, milliseconds);
    }

    @Override
    public int getNetworkTimeout() throws SQLException {
        return delegate.getNetworkTimeout();
    }

    @Override
    public void beginRequest() throws SQLException {
        delegate.beginRequest();
    }

    @Override
    public void endRequest() throws SQLException {
        delegate.endRequest();
    }

    @Override
    public boolean setShardingKeyIfValid(ShardingKey shardingKey, ShardingKey superShardingKey,
            int timeout) throws SQLException {
        return delegate.setShardingKeyIfValid(shardingKey, superShardingKey, timeout);
    }

    @Override
    public boolean setShardingKeyIfValid(ShardingKey shardingKey, int timeout) throws SQLException {
        return delegate.setShardingKeyIfValid(shardingKey, timeout);
    }

    @Override
    public void setShardingKey(ShardingKey shardingKey, ShardingKey superShardingKey) throws SQLException {
        delegate.setShardingKey(shardingKey, superShardingKey);
    }

    @Override
    public void setShardingKey(ShardingKey shardingKey) throws SQLException {
        delegate.setShardingKey(shardingKey);
    }
}
