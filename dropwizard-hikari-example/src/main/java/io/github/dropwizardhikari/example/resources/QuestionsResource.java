package io.github.dropwizardhikari.example.resources;

import io.github.dropwizardhikari.example.api.AnswerMove;
import io.github.dropwizardhikari.example.api.Question;
import io.github.dropwizardhikari.example.api.QuestionInput;
import io.github.dropwizardhikari.example.db.QuestionDao;
import io.github.dropwizardhikari.example.errors.Errors;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.UriInfo;
import org.jdbi.v3.core.Jdbi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The questions API: questions by owner, and endpoints for the other shapes of database work — many small
 * selects, one large select, writes and a transaction.
 */
@Path("/questions")
@Produces(MediaType.APPLICATION_JSON)
public class QuestionsResource {
    private final Jdbi jdbi;
    private final int maxLimit;
    private final int maxUsersPerRequest;

    public QuestionsResource(Jdbi jdbi, int maxLimit, int maxUsersPerRequest) {
        this.jdbi = jdbi;
        this.maxLimit = maxLimit;
        this.maxUsersPerRequest = maxUsersPerRequest;
    }

    /**
     * {@code GET /questions?user=87}: the questions of one owner, over the owner index. Owner ids are positive, as a
     * question's {@code ownerUserId} must be, so {@code user=-1} is refused rather than answered with no questions.
     */
    @GET
    public List<Question> byOwner(@QueryParam("user") String user) {
        long owner = WholeNumbers.parse("query param user", user, 1, Long.MAX_VALUE);
        return jdbi.withExtension(QuestionDao.class, dao -> dao.findByOwner(owner));
    }

    /**
     * {@code GET /questions/by-owners?users=1,2,3}: one small select per owner on one connection, the pattern
     * of an N+1 access path.
     */
    @GET
    @Path("by-owners")
    public Map<Long, List<Question>> byOwners(@QueryParam("users") String users) {
        if (users == null || users.isBlank()) {
            throw Errors.of(400, "query param users is required");
        }
        List<Long> owners = parseUsers(users);
        return jdbi.withExtension(QuestionDao.class, dao -> {
            Map<Long, List<Question>> result = new LinkedHashMap<>();
            for (long owner : owners) {
                result.put(owner, dao.findByOwner(owner));
            }
            return result;
        });
    }

    /** {@code GET /questions/first?limit=1000}: one large select, in id order. */
    @GET
    @Path("first")
    public List<Question> first(@QueryParam("limit") @DefaultValue("100") String limitParam) {
        long limit = WholeNumbers.parse("query param limit", limitParam, 1, maxLimit);
        return jdbi.withExtension(QuestionDao.class, dao -> dao.firstQuestions((int) limit));
    }

    @GET
    @Path("{id}")
    public Question byId(@PathParam("id") String idParam) {
        long id = pathId(idParam);
        return jdbi.withExtension(QuestionDao.class, dao -> dao.findById(id))
            .orElseThrow(() -> Errors.questionNotFound(id));
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response create(@NotNull @Valid QuestionInput input, @Context UriInfo uriInfo) {
        long id = jdbi.withExtension(QuestionDao.class, dao -> dao.insert(input));
        return Response.created(uriInfo.getAbsolutePathBuilder().path(Long.toString(id)).build())
            .entity(input.withId(id))
            .build();
    }

    @PUT
    @Path("{id}")
    @Consumes(MediaType.APPLICATION_JSON)
    public Question update(@PathParam("id") String idParam, @NotNull @Valid QuestionInput input) {
        long id = pathId(idParam);
        int updated = jdbi.withExtension(QuestionDao.class, dao -> dao.update(id, input));
        if (updated == 0) {
            throw Errors.questionNotFound(id);
        }
        return input.withId(id);
    }

    @DELETE
    @Path("{id}")
    public Response delete(@PathParam("id") String idParam) {
        long id = pathId(idParam);
        int deleted = jdbi.withExtension(QuestionDao.class, dao -> dao.delete(id));
        if (deleted == 0) {
            throw Errors.questionNotFound(id);
        }
        return Response.noContent().build();
    }

    /**
     * {@code POST /questions/4/move-answers?to=6&count=2}: moves answers from one question to another in one
     * transaction; either both counts change or neither does.
     */
    @POST
    @Path("{id}/move-answers")
    public AnswerMove moveAnswers(@PathParam("id") String fromParam,
                                  @QueryParam("to") String toParam,
                                  @QueryParam("count") String countParam) {
        long from = pathId(fromParam);
        long to = WholeNumbers.parse("query param to", toParam);
        // answer counts are INT columns
        long count = WholeNumbers.parse("query param count", countParam, 1, Integer.MAX_VALUE);
        if (from == to) {
            throw Errors.of(Errors.UNPROCESSABLE_ENTITY, "query param to must differ from the source question");
        }
        return jdbi.inTransaction(handle -> {
            QuestionDao dao = handle.attach(QuestionDao.class);
            // lock in id order, so two opposite moves cannot deadlock
            for (long id : new long[] {Math.min(from, to), Math.max(from, to)}) {
                dao.lockById(id).orElseThrow(() -> Errors.questionNotFound(id));
            }
            Question source = dao.findById(from).orElseThrow();
            if (source.answerCount() < count) {
                throw Errors.of(Errors.UNPROCESSABLE_ENTITY, "query param count must be at most "
                    + source.answerCount() + ", the answers question " + from + " has");
            }
            dao.addAnswers(from, (int) -count);
            dao.addAnswers(to, (int) count);
            return new AnswerMove(dao.findById(from).orElseThrow(), dao.findById(to).orElseThrow());
        });
    }

    private static long pathId(String value) {
        return WholeNumbers.parse("path param id", value);
    }

    private List<Long> parseUsers(String users) {
        Set<Long> owners = new LinkedHashSet<>();
        for (String part : users.split(",", -1)) {
            owners.add(WholeNumbers.parse("each user id in query param users", part, 1, Long.MAX_VALUE));
        }
        if (owners.size() > maxUsersPerRequest) {
            throw Errors.of(400, "query param users must name at most " + maxUsersPerRequest + " users");
        }
        return new ArrayList<>(owners);
    }
}
