package io.github.dropwizardhikari;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What one compiled class refers to, read from its constant pool: every name and descriptor (so a type used only
 * in a signature counts too), the methods it calls and the string constants of its code. The layout is the JVM
 * specification's (chapter 4.4); a class that refers to something has it in its constant pool.
 *
 * @param texts   every text of the pool, in the JVM's form ({@code com/zaxxer/hikari/pool/HikariPool})
 * @param methods the methods referred to, as {@code owner.name}
 * @param strings the string constants its code loads, including the constant parts of concatenations
 */
record ClassFileConstants(List<String> texts, List<String> methods, List<String> strings) {
    private static final int UTF8 = 1;
    private static final int INTEGER = 3;
    private static final int FLOAT = 4;
    private static final int LONG = 5;
    private static final int DOUBLE = 6;
    private static final int CLASS = 7;
    private static final int STRING = 8;
    private static final int FIELD_REF = 9;
    private static final int METHOD_REF = 10;
    private static final int INTERFACE_METHOD_REF = 11;
    private static final int NAME_AND_TYPE = 12;
    private static final int METHOD_HANDLE = 15;
    private static final int METHOD_TYPE = 16;
    private static final int DYNAMIC = 17;
    private static final int INVOKE_DYNAMIC = 18;
    private static final int MODULE = 19;
    private static final int PACKAGE = 20;

    static ClassFileConstants read(byte[] classFile) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        int[] tags = new int[count];
        String[] utf8 = new String[count];
        int[] first = new int[count];
        int[] second = new int[count];
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            tags[i] = tag;
            switch (tag) {
                case UTF8 -> utf8[i] = in.readUTF();
                case CLASS, STRING, METHOD_TYPE, MODULE, PACKAGE -> first[i] = in.readUnsignedShort();
                case FIELD_REF, METHOD_REF, INTERFACE_METHOD_REF, NAME_AND_TYPE, DYNAMIC, INVOKE_DYNAMIC -> {
                    first[i] = in.readUnsignedShort();
                    second[i] = in.readUnsignedShort();
                }
                case METHOD_HANDLE -> {
                    in.readUnsignedByte();
                    first[i] = in.readUnsignedShort();
                }
                case INTEGER, FLOAT -> in.readInt();
                case LONG, DOUBLE -> {
                    in.readLong();
                    // an eight-byte constant takes two entries
                    i++;
                }
                default -> throw new IOException("unknown constant pool tag " + tag + " at entry " + i);
            }
        }
        List<String> texts = new ArrayList<>();
        List<String> methods = new ArrayList<>();
        List<String> strings = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            switch (tags[i]) {
                case UTF8 -> texts.add(utf8[i]);
                case STRING -> strings.add(utf8[first[i]]);
                case METHOD_REF, INTERFACE_METHOD_REF -> {
                    String owner = utf8[first[first[i]]];
                    String name = utf8[first[second[i]]];
                    methods.add(owner + "." + name);
                }
                default -> {
                    // names and descriptors are among the texts already
                }
            }
        }
        return new ClassFileConstants(texts, methods, strings);
    }
}
